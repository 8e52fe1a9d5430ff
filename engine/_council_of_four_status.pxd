# Consistency of a loaded position (python-chess Board.status() style); see
# _council_of_four_status.pyx.

from council.engine._council_of_four cimport GameState

# Every consistency problem of the position as a list of (field path, problem) tuples,
# empty when it is consistent. For loaders that fill a GameState directly.
cdef list state_problems(GameState* s)
