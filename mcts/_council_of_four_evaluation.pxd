# Council of Four's position evaluation, shared by its search module
# (_council_of_four_search.pyx), the expert agent and the learned models: per-seat features
# of a full state, the learned value network and policy prior, the expert's planner.

from libc.stdint cimport uint64_t

from council.engine._council_of_four cimport GameState, MAX_PLAYERS

cdef enum:
    N_FEATURES = 32
    MAX_HIDDEN = 64
    N_ACTION_FEATURES = 24
    MAX_REDEALS = 64         # leaf redeals a search may ask for (SearchConfig.leaf_redeals)

ctypedef struct PolicyNet:
    # Prior of a legal action a: softmax over the legal actions of w . (phi(a) - mean) / scale,
    # computed as wk . phi(a) with wk = w / scale (the mean term is the same for every
    # action, so the softmax drops it).
    double wk[N_ACTION_FEATURES]

ctypedef struct ValueNet:
    # Per-seat score s_p = w . z_p (hidden == 0) or w2 . tanh(W1 z_p + b1), with
    # z_p = (features_p - mean) / scale; win chances are the softmax of s over the seats.
    int hidden
    double mean[N_FEATURES]
    double scale[N_FEATURES]
    double w[N_FEATURES]
    double w1[MAX_HIDDEN][N_FEATURES]
    double b1[MAX_HIDDEN]
    double w2[MAX_HIDDEN]

cdef void seat_features(GameState* s, double out[][N_FEATURES]) noexcept nogil
cdef void value_win_chances(GameState* s, ValueNet* net, double* win) noexcept nogil
cdef void redealt_win_chances(GameState* s, ValueNet* net, int viewer, int redeals,
                              uint64_t* rng, double* win) noexcept nogil
cdef int expert_action(GameState* s, double* weights) noexcept nogil
cdef int fill_value_net(ValueNet* net, object model) except -1
cdef void action_features(GameState* s, int a, double* out) noexcept nogil
cdef void policy_priors(GameState* s, int* actions, int n, PolicyNet* net,
                        double* prior) noexcept nogil
cdef int fill_policy_net(PolicyNet* net, object model) except -1
