# Consistency of a loaded position: placeholder until the compiled checks land.
from council.engine._core cimport State


def problems(State state):
    """Every consistency problem of ``state`` as ``(field path, problem)`` pairs."""
    return []
