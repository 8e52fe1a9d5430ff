"""Suite-wide checks."""

import os
from pathlib import Path

from hypothesis import settings

import council.engine._core as core

# Property tests draw their examples from a fixed seed, so every run tries the same cases.
settings.register_profile("repeatable", derandomize=True, database=None, deadline=None)
settings.load_profile("repeatable")


def pytest_report_header(config):
    return f"council.engine._core: {core.__file__}"


def pytest_configure(config):
    # `council-ai serve` keeps a seal key under $XDG_STATE_HOME when given none: the
    # servers the tests start (child processes included) keep theirs in a folder of this
    # run, never in the home folder of whoever runs the tests.
    state_home = Path(config.rootpath, "build", "test-state")
    state_home.mkdir(parents=True, exist_ok=True)
    os.environ["XDG_STATE_HOME"] = str(state_home)
    # `make test` reruns the random-play tests against the debug build; make sure that
    # run really imported it rather than the optimised build of the editable install.
    if os.environ.get("COUNCIL_EXPECT_DEBUG_BUILD") == "1":
        built = Path(core.__file__).resolve()
        if "debug" not in built.parts:
            raise RuntimeError(f"expected the debug build of the core, imported {built}")
