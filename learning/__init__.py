"""Learning the search's models from self-play: the data and the training, apart from the
runtime.

* ``selfplay``: seeded, resumable self-play games recorded into sharded ``.npz`` files.
* ``data``: the shards of several self-play directories, split by game (seeded).
* ``train``: fits the learned value model (``council.mcts.value_model``).
* ``train_policy``: fits the learned policy prior (``council.mcts.policy_model``).
* ``cli``: the ``council-ai selfplay``, ``train`` and ``train-policy`` commands
  (docs/learning.md).

The search reads the models these write (``council.mcts`` holds the inference, NumPy only)
and never imports this package. It imports ``council.mcts`` and ``council.engine``; of the
service's package only the command line imports it (``council.learning.cli``, to register
its commands), and the ladder none of it. Training needs the ``train`` extra
(``pip install 'council-ai[train]'``: SciPy, and matplotlib for ``train --report``);
self-play needs nothing more than the runtime (Ray only for ``--ray-address``).
"""
