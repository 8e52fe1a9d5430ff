"""Suite-wide checks."""

import os
from pathlib import Path

import council.engine._core as core


def pytest_report_header(config):
    return f"council.engine._core: {core.__file__}"


def pytest_configure(config):
    # `make test` reruns the random-play tests against the debug build; make sure that
    # run really imported it rather than the optimised build of the editable install.
    if os.environ.get("COUNCIL_EXPECT_DEBUG_BUILD") == "1":
        built = Path(core.__file__).resolve()
        if "debug" not in built.parts:
            raise RuntimeError(f"expected the debug build of the core, imported {built}")
