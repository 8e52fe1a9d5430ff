"""Views and determinization: ``state.view(p)`` then ``view.determinize(seed)``.

A determinization must be a full state the viewer cannot tell from the truth (its view is
the original view), conserve every count, keep hidden hand sizes, play to the end, depend
only on the view and the seed, and deal the unseen politics cards uniformly: each unseen
card kind lands in each opponent's hand at the rate of a uniform deal. Views erase the
order of the face-down permit decks (their unknown part is sorted) and the RNG.
"""

from __future__ import annotations

import math
import random

import pytest
from invariants import CARDS_PER_KIND, check_invariants

from council.engine._council_of_four import ACTION_OFFSETS
from council.engine.council_of_four import CouncilOfFourConfig, CouncilOfFourState

END_TURN = ACTION_OFFSETS["end_turn"]
CHANGE = ACTION_OFFSETS["change"]


def game_positions(config: CouncilOfFourConfig, seed: int, every: int) -> list[CouncilOfFourState]:
    """Copies of the positions of one random game, every `every` actions, and the end."""
    state = CouncilOfFourState.new_game(config, seed=seed)
    rng = random.Random(seed)
    out = [state.clone()]
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
        if state.action_count % every == 0:
            out.append(state.clone())
    out.append(state.clone())
    return out


def find_position(config: CouncilOfFourConfig, seed: int, accept) -> CouncilOfFourState:
    """The first position of a random game (or the next seeds') for which accept(raw)."""
    for s in range(seed, seed + 50):
        state = CouncilOfFourState.new_game(config, seed=s)
        rng = random.Random(s)
        while not state.is_terminal():
            if accept(state.to_raw()):
                return state
            state.apply(rng.choice(state.legal_actions()))
    raise AssertionError("no position found: the test's position search needs new seeds")


POSITIONS = [
    *game_positions(CouncilOfFourConfig(players=2), 1, 60),
    *game_positions(CouncilOfFourConfig(players=3, layout="BBA"), 2, 80),
    *game_positions(CouncilOfFourConfig(players=4), 3, 120),
    *game_positions(CouncilOfFourConfig(players=4, nobility_bonus_on_pass=True), 4, 150),
]


def _pos_id(state: CouncilOfFourState) -> str:
    return f"{state.n_players}p-a{state.action_count}"


def unseen_counts(view_raw: dict) -> list[int]:
    v = view_raw["viewer"]
    return [CARDS_PER_KIND[k] - view_raw["discard"][k] - view_raw["hand"][v][k] for k in range(7)]


@pytest.mark.parametrize("state", POSITIONS, ids=_pos_id)
def test_determinization_is_consistent_with_the_view(state: CouncilOfFourState) -> None:
    truth = state.to_raw()
    for p in range(state.n_players):
        view = state.view(p)
        check_invariants(view)
        assert view.is_view and view.viewer == p
        assert view.view(p) == view, "view() of a view must not change it"
        vraw = view.to_raw()
        assert vraw["hand"][p] == truth["hand"][p], "the viewer's own hand is visible"
        assert vraw["hand_n"] == truth["hand_n"], "hand sizes are public"
        assert vraw["discard"] == truth["discard"], "the discard pile is public"
        assert vraw["politics_deck_n"] == truth["politics_deck_n"]
        for seed in (0, 1, 2**63 + 5):
            det = view.determinize(seed)
            assert not det.is_view and det.viewer == -1
            check_invariants(det)
            assert det.view(p) == view, f"seat {p} can tell the determinization from the truth"
            draw = det.to_raw()
            assert draw["hand_n"] == truth["hand_n"], "hidden hand sizes changed"
            assert draw["hand"][p] == truth["hand"][p]
            assert draw["politics_deck_n"] == truth["politics_deck_n"]
            for key in ("permit_deck", "face_up", "coins", "emporia", "pending_kind", "turn"):
                assert draw[key] == vraw[key], f"determinize changed public field {key}"
            if state.current_player == p:
                assert det.legal_actions() == state.legal_actions(), (
                    "the viewer's own legal actions must depend only on what it sees"
                )


@pytest.mark.parametrize("state", POSITIONS[::3], ids=_pos_id)
def test_determinizations_play_to_the_end(state: CouncilOfFourState) -> None:
    for p in range(state.n_players):
        det = state.view(p).determinize(1000 + p)
        rng = random.Random(p)
        for _ in range(40):  # a few Python-chosen actions, checked one by one
            if det.is_terminal():
                break
            det.apply(rng.choice(det.legal_actions()))
            check_invariants(det)
        det.random_playout(seed=p)
        assert det.is_terminal() and det.legal_actions() == []
        check_invariants(det)
        assert det.winners()


@pytest.mark.parametrize("state", POSITIONS[1::4], ids=_pos_id)
def test_determinize_is_a_function_of_view_and_seed(state: CouncilOfFourState) -> None:
    for p in range(state.n_players):
        view = state.view(p)
        assert view.determinize(42) == view.determinize(42), "same seed, different samples"
        # other true states with the same view: resampled hands, another RNG, a shuffled
        # unknown permit deck, cards swapped between hidden places
        others = [view.determinize(7), view.determinize(8)]
        shuffled = state.clone()
        shuffled.reseed(12345)
        others.append(_shuffle_hidden(shuffled, p, random.Random(p)))
        for other in others:
            check_invariants(other)
            assert other.view(p) == view, "test setup: the other true state has another view"
            assert other.view(p).determinize(42) == view.determinize(42), (
                "the determinization depends on hidden information, not only on the view"
            )
        if _deal_is_free(view):
            samples = {repr(view.determinize(s).to_raw()["hand"]) for s in range(12)}
            assert len(samples) > 1, "different seeds never change the hidden hands"


def _deal_is_free(view: CouncilOfFourState) -> bool:
    """Whether the hidden cards can be dealt in more than one way."""
    raw = view.to_raw()
    sizes = [raw["hand_n"][q] for q in range(view.n_players) if q != raw["viewer"]]
    sizes.append(raw["politics_deck_n"])
    return sum(1 for n in sizes if n) >= 2 and sum(1 for n in unseen_counts(raw) if n) >= 2


def _shuffle_hidden(
    state: CouncilOfFourState, viewer: int, rng: random.Random
) -> CouncilOfFourState:
    """Another true state with the same view: hidden cards moved, unknown permits reordered."""
    raw = state.to_raw()
    hidden = [q for q in range(state.n_players) if q != viewer]
    places = [raw["hand"][q] for q in hidden] + [raw["politics_deck"]]
    for _ in range(20):
        a, b = rng.sample(range(len(places)), 2)
        ka = [k for k in range(7) if places[a][k] > 0]
        kb = [k for k in range(7) if places[b][k] > 0]
        if ka and kb:
            x, y = rng.choice(ka), rng.choice(kb)
            places[a][x] -= 1
            places[a][y] += 1
            places[b][y] -= 1
            places[b][x] += 1
    for r in range(3):
        unknown = raw["deck_n"][r] - raw["deck_known"][r]
        part = raw["permit_deck"][r][:unknown]
        rng.shuffle(part)
        raw["permit_deck"][r][:unknown] = part
    return CouncilOfFourState.from_raw(raw)


def test_hidden_information_does_not_reach_the_view() -> None:
    state = find_position(
        CouncilOfFourConfig(players=4),
        50,
        lambda r: min(r["hand_n"][:4]) >= 3 and min(r["deck_n"]) >= 5 and r["turn"] > 8,
    )
    for p in range(4):
        other = _shuffle_hidden(state, p, random.Random(99 + p))
        other.reseed(77)
        assert other != state, "test setup: nothing hidden was changed"
        check_invariants(other)
        assert other.view(p) == state.view(p), "the view shows hidden cards, order or RNG"
    # the permit deck's unknown part is canonical (sorted) in a view, the known part kept
    for p in range(4):
        raw, vraw = state.to_raw(), state.view(p).to_raw()
        for r in range(3):
            unknown = raw["deck_n"][r] - raw["deck_known"][r]
            assert vraw["permit_deck"][r][:unknown] == sorted(raw["permit_deck"][r][:unknown])
            assert vraw["permit_deck"][r][unknown:] == raw["permit_deck"][r][unknown:]


def test_known_bottom_of_a_permit_deck_survives_the_view() -> None:
    # a position after "change permit tiles": the tiles put under are public, in order
    state = find_position(
        CouncilOfFourConfig(players=3),
        60,
        lambda r: any(
            r["deck_known"][i] >= 2 and r["deck_n"][i] - r["deck_known"][i] >= 3 for i in range(3)
        ),
    )
    raw = state.to_raw()
    for p in range(3):
        view = state.view(p)
        vraw = view.to_raw()
        assert vraw["deck_known"] == raw["deck_known"]
        for r in range(3):
            unknown = raw["deck_n"][r] - raw["deck_known"][r]
            part = vraw["permit_deck"][r][:unknown]
            assert part == sorted(part), f"unknown part of permit deck {r} not canonical"
            assert vraw["permit_deck"][r][unknown:] == raw["permit_deck"][r][unknown:], (
                "the known bottom of a permit deck was lost or reordered"
            )
        det = view.determinize(3)
        assert det.to_raw()["permit_deck"] == vraw["permit_deck"]


def test_view_and_determinize_refuse_wrong_input() -> None:
    state = CouncilOfFourState.new_game(CouncilOfFourConfig(players=3), seed=4)
    with pytest.raises(ValueError):
        state.determinize(1)  # a full state is not a view
    with pytest.raises(ValueError):
        state.view(3)
    with pytest.raises(ValueError):
        state.view(-1)
    with pytest.raises(ValueError):
        state.view(0).view(1)  # a view cannot become another seat's view


def _drawn_by_end_turn(det: CouncilOfFourState) -> tuple[int, int]:
    """(next seat, kind of the card it draws) when the current player ends the turn."""
    before = det.to_raw()
    det.apply(END_TURN)
    after = det.to_raw()
    q = after["current"]
    diff = [after["hand"][q][k] - before["hand"][q][k] for k in range(7)]
    assert sorted(diff) == [0] * 6 + [1], f"end of turn should draw one card, got {diff}"
    return q, diff.index(1)


def test_deck_order_is_hidden_different_seeds_draw_differently() -> None:
    state = find_position(
        CouncilOfFourConfig(players=3),
        70,
        lambda r: (
            r["pending_n"] == 0
            and r["main_done"] > 0
            and r["end_trigger"] < 0
            and r["politics_deck_n"] > 20
        ),
    )
    viewer = (state.current_player + 1) % 3  # the next seat: it sees its own draw
    view = state.view(viewer)
    drawn = set()
    for seed in range(24):
        det = view.determinize(seed)
        q, kind = _drawn_by_end_turn(det)
        assert q == viewer
        drawn.add(kind)
    assert len(drawn) >= 3, f"24 samples drew only card kinds {drawn}: the deck order leaks"
    # the same for the face-down permit tiles drawn by "change permit tiles"
    state = find_position(
        CouncilOfFourConfig(players=3),
        80,
        lambda r: (
            r["pending_n"] == 0
            and r["quick_used"] == 0
            and r["assistants"][r["current"]] >= 1
            and r["deck_n"][0] - r["deck_known"][0] >= 6
        ),
    )
    change = CHANGE + 0
    assert change in state.legal_actions()
    view = state.view(state.current_player)
    vraw = view.to_raw()
    unknown_part = set(vraw["permit_deck"][0][: vraw["deck_n"][0] - vraw["deck_known"][0]])
    faces = set()
    for seed in range(24):
        det = view.determinize(seed)
        det.apply(change)
        new = tuple(det.to_raw()["face_up"][0])
        assert set(new) <= unknown_part, "change drew a tile that was not face down and unknown"
        faces.add(new)
    assert len(faces) >= 5, f"24 samples drew only {faces}: the permit deck order leaks"


def _uniform_deal_z_scores(view: CouncilOfFourState, n_samples: int, seed: int) -> dict:
    """z-score of the total count of each (hidden place, card kind) over n_samples draws."""
    vraw = view.to_raw()
    v = vraw["viewer"]
    unseen = unseen_counts(vraw)
    total = sum(unseen)
    opponents = [q for q in range(view.n_players) if q != v]
    sizes = {q: vraw["hand_n"][q] for q in opponents}
    sizes["deck"] = vraw["politics_deck_n"]
    assert sum(sizes.values()) == total, "unseen cards do not fill the hidden places"
    observed = {(q, k): 0 for q in sizes for k in range(7)}
    for i in range(n_samples):
        raw = view.determinize(seed + i).to_raw()
        for q in opponents:
            assert sum(raw["hand"][q]) == sizes[q]
            for k in range(7):
                observed[q, k] += raw["hand"][q][k]
        for k in range(7):
            observed["deck", k] += raw["politics_deck"][k]
    z = {}
    for (q, k), obs in observed.items():
        h, kk = sizes[q], unseen[k]
        mean = h * kk / total
        # multivariate hypergeometric: variance of one place's count of one kind
        var = h * (kk / total) * (1 - kk / total) * (total - h) / (total - 1) if total > 1 else 0
        if var == 0:
            assert obs == n_samples * mean, f"{q}/{k}: forced count {mean} not respected"
            z[q, k] = 0.0
        else:
            z[q, k] = (obs - n_samples * mean) / math.sqrt(n_samples * var)
    return z


@pytest.mark.parametrize(
    ("players", "seed", "early"),
    [(3, 90, True), (4, 91, False), (4, 92, True), (2, 93, False)],
)
def test_unseen_cards_are_dealt_uniformly(players: int, seed: int, early: bool) -> None:
    def accept(r: dict) -> bool:
        sizes = [r["hand_n"][q] for q in range(1, players)]
        if early:
            return r["turn"] >= 3 and min(sizes) >= 5
        # late: small deck (reshuffles happened or soon), opponents of different hand sizes
        return r["politics_deck_n"] < 25 and len(set(sizes)) == len(sizes) and min(sizes) >= 2

    state = find_position(CouncilOfFourConfig(players=players), seed, accept)
    view = state.view(0)
    z = _uniform_deal_z_scores(view, n_samples=10_000, seed=seed * 1000)
    worst = max(z, key=lambda key: abs(z[key]))
    assert abs(z[worst]) < 5.0, (
        f"hidden place {worst[0]} got card kind {worst[1]} at a rate far from a uniform deal "
        f"(z = {z[worst]:.1f}); all z: { {key: round(val, 1) for key, val in z.items()} }"
    )
    # chi-square-like sum over the cells: near the number of free cells, not far above
    assert sum(val * val for val in z.values()) < 3 * len(z)


def test_uniform_deal_check_detects_a_biased_deal() -> None:
    """The statistic above must fail for a deal that sends every joker to one opponent."""
    state = find_position(
        CouncilOfFourConfig(players=4), 94, lambda r: r["turn"] >= 3 and min(r["hand_n"][1:4]) >= 5
    )
    view = state.view(0)
    vraw = view.to_raw()
    unseen = unseen_counts(vraw)

    class Biased:
        """A fake view whose determinize deals opponent 1 as many jokers as it can hold."""

        n_players = 4

        def to_raw(self):
            return vraw

        def determinize(self, seed):
            rng = random.Random(seed)
            raw = view.determinize(seed).to_raw()
            cards = [k for k in range(7) for _ in range(unseen[k])]
            rng.shuffle(cards)
            cards.sort(key=lambda k: k != 6)  # jokers first, the rest shuffled
            for q in (1, 2, 3):
                hand = [0] * 7
                for _ in range(raw["hand_n"][q]):
                    hand[cards.pop(0)] += 1
                raw["hand"][q] = hand
            raw["politics_deck"] = [cards.count(k) for k in range(7)]
            return CouncilOfFourState.from_raw(raw)

    z = _uniform_deal_z_scores(Biased(), n_samples=300, seed=1)
    assert max(abs(val) for val in z.values()) > 5.0
