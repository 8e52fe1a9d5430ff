"""The image's build steps (deploy/Containerfile) without a container runtime, which these
machines lack: deploy/build-wheel.sh builds the wheel from a copy of the sources, the wheel
goes into a fresh virtual environment, and what it installed imports and serves.

Slow: the build compiles the Cython core (minutes on two cores). Offline: the build uses
the build requirements of the running environment (``--no-build-isolation``) and the fresh
environment borrows its runtime dependencies (the image's ``pip install`` fetches them)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import urllib.request
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
# What a build or a run leaves in the tree, which the image's build context leaves out too
# (.dockerignore).
LEFT_OUT = shutil.ignore_patterns(
    ".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__", "*.so", "*.c",
    "node_modules", ".pytest_cache", ".ruff_cache", ".hypothesis", "*_pb2*.py", "*_pb2*.pyi",
    "*_connect.py", "ladder.sqlite",
)  # fmt: skip


@pytest.mark.slow
def test_the_image_build_steps_make_a_wheel_that_installs_imports_and_serves(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=LEFT_OUT, symlinks=True)
    wheels = tmp_path / "wheels"
    # Unoptimised (setup.py's COUNCIL_CYTHON_QUICK): this wheel is installed, imported and
    # served from, never measured, and -O3 takes most of the build's time.
    env = {**os.environ, "PYTHON": sys.executable, "COUNCIL_CYTHON_QUICK": "1"}
    built = subprocess.run(
        ["sh", "deploy/build-wheel.sh", str(wheels), "--no-build-isolation", "--quiet"],
        cwd=source,
        env=env,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = wheels.glob("council_ai-*.whl")

    target = tmp_path / "venv"
    venv.create(target, with_pip=True)
    python = target / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", wheel], check=True
    )
    # The runtime dependencies from this environment (installed after the wheel, so that pip
    # does not take this environment's editable council-ai for the one to install).
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(purelib) / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    probe = subprocess.run(
        [
            python,
            "-c",
            "import json, council.engine._council_of_four as core, council.server.app\n"
            "from council.server.client import service_config\n"
            "print(json.dumps([core.__file__, json.loads(service_config())['methodConfig']]))",
        ],
        cwd=tmp_path,
        env=clean,
        capture_output=True,
        text=True,
    )
    assert probe.returncode == 0, probe.stderr[-3000:]
    core_file, method_config = json.loads(probe.stdout)
    assert Path(core_file).is_relative_to(target)  # the wheel's, not the source tree's
    assert method_config[0]["retryPolicy"]["retryableStatusCodes"] == ["UNAVAILABLE"]

    council_ai = target / "bin" / "council-ai"
    helped = subprocess.run([council_ai, "--help"], env=clean, capture_output=True, text=True)
    assert helped.returncode == 0 and "serve" in helped.stdout

    # As the image runs it: a seal key file from a "secret", a state folder of its own.
    keys = tmp_path / "seal-keys"
    keys.write_text(subprocess.run([council_ai, "seal-key"], env=clean, capture_output=True,
                                   text=True, check=True).stdout)  # fmt: skip
    serve = subprocess.Popen(
        [council_ai, "serve", "--address", "127.0.0.1:0", "--http-address", "127.0.0.1:0"]
        + ["--seal-key-file", str(keys)],
        env={**clean, "XDG_STATE_HOME": str(tmp_path / "state")},
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert serve.stdout is not None
        ready = json.loads(serve.stdout.readline())
        with urllib.request.urlopen(f"http://{ready['http']}/healthz", timeout=10) as answer:
            assert answer.read() == b"ok\n"
        with urllib.request.urlopen(f"http://{ready['http']}/", timeout=10) as answer:
            assert b"<html" in answer.read().lower()  # the page's files are in the wheel
    finally:
        serve.terminate()
        assert serve.wait(30) == 0
        assert serve.stdout is not None
        serve.stdout.close()
    assert not (tmp_path / "state").exists()  # given a key, nothing written there
