"""Build the Cython core. Metadata lives in pyproject.toml.

Set COUNCIL_CYTHON_DEBUG=1 for a debug build: Cython's bounds, wraparound and
initialisation checks on, and the C compiler's undefined-behaviour sanitizer with
array-bounds checks (Cython never checks plain C arrays such as the state's fields),
so an out-of-range index in the compiled core aborts instead of corrupting memory.
"""

import os
import shutil
import sys
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

DEBUG = os.environ.get("COUNCIL_CYTHON_DEBUG", "") not in ("", "0")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": True,  # C semantics in both builds, so they play identically
    "nonecheck": False,  # a None check needs the GIL, and the hot loops run without it
    "embedsignature": True,
}
if DEBUG:
    sanitize = ["-fsanitize=bounds,undefined", "-fno-sanitize-recover=all"]
    compile_args = ["-O1", "-g", "-fno-omit-frame-pointer", *sanitize]
    link_args = sanitize
else:
    # COUNCIL_CYTHON_QUICK=1: unoptimised, for a build that is only installed and imported
    # (tests/deploy/test_wheel.py), which compiles in a fraction of -O3's time.
    quick = os.environ.get("COUNCIL_CYTHON_QUICK", "") not in ("", "0")
    compile_args = ["-O0" if quick else "-O3"]
    link_args = []

# The packages are mapped from top-level folders (engine/ -> council.engine), but Cython
# finds .pxd files by their dotted module name: give it a council/ tree that links back.
ROOT = Path(__file__).resolve().parent
INCLUDE = ROOT / "build" / "cython-include"
for package in ("engine", "mcts"):
    link = INCLUDE / "council" / package
    if not link.exists():
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(ROOT / package, target_is_directory=True)
(INCLUDE / "council" / "__init__.pxd").touch()


def _connect_plugin() -> str:
    """The protoc plugin of connect-python (a build requirement: the protoc-gen-connect-python
    wheel ships it as a script), looked up on PATH (pip's isolated build environment puts
    its scripts there), then beside this interpreter (a virtual environment's bin/)."""
    name = "protoc-gen-connect-python"
    for found in (shutil.which(name), Path(sys.executable).parent / name):
        if found and Path(found).is_file():
            return str(found)
    raise RuntimeError(f"{name} not found: pip install {name} (see pyproject.toml)")


def generate_stubs() -> None:
    """Run grpc_tools.protoc on proto/: council/v1/*.proto -> proto/council/v1/*_pb2*.py
    and *_pb2.pyi, and the Connect (HTTP) service *_connect.py (git-ignored), importable as
    council.v1 through the package-dir mapping."""
    from grpc_tools import protoc  # a build requirement (pyproject.toml)

    well_known = Path(protoc.__file__).resolve().parent / "_proto"
    protos = sorted(str(p.relative_to(ROOT / "proto")) for p in (ROOT / "proto").rglob("*.proto"))
    args = ["grpc_tools.protoc", f"-I{ROOT / 'proto'}", f"-I{well_known}"]
    out = ROOT / "proto"  # the messages' type stubs (*_pb2.pyi) too, for mypy
    args += [f"--python_out={out}", f"--pyi_out={out}", f"--grpc_python_out={out}"]
    # connect-python's plugin: council/v1/service_connect.py, the ASGI application that
    # serves the service over HTTP with the Connect protocol (council.server.connect).
    plugin = f"--plugin=protoc-gen-connect-python={_connect_plugin()}"
    args += [plugin, f"--connect-python_out={out}"]
    args += protos
    if protoc.main(args) != 0:
        raise RuntimeError("grpc_tools.protoc failed on " + " ".join(protos))


class BuildPyWithStubs(build_py):
    """build_py that first generates the gRPC stubs (also runs for editable installs)."""

    def run(self):
        generate_stubs()
        super().run()


extensions = [
    Extension(
        f"council.{package}.{module}",
        [f"{package}/{module}.pyx"],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
    )
    for package, module in (
        ("engine", "_council_of_four"),
        ("engine", "_bench"),
        ("engine", "_council_of_four_document"),
        ("engine", "_council_of_four_status"),
        ("engine", "_the_council"),
        ("engine", "_kuhn_poker"),
        ("engine", "_leduc_poker"),
        ("engine", "_a_war_of_whispers"),
        ("mcts", "_council_of_four_evaluation"),
        ("mcts", "_council_of_four_search"),
        ("mcts", "_the_council_search"),
        ("mcts", "_kuhn_poker_search"),
        ("mcts", "_leduc_poker_search"),
        ("mcts", "_a_war_of_whispers_search"),
        ("mcts", "_search"),
    )
]


class BuildExtInParallel(build_ext):
    """Compiles the C files on every core unless told otherwise (``-j N``): a first build
    and the wheel of deploy/build-wheel.sh take about half the time on two cores."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1


setup(
    cmdclass={"build_py": BuildPyWithStubs, "build_ext": BuildExtInParallel},
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        include_path=[str(INCLUDE)],
        # A debug build must not reuse C files generated for the optimised build.
        build_dir="build/cython-debug" if DEBUG else "build/cython",
        nthreads=os.cpu_count() or 1,  # Cython's translations in parallel too
    ),
)
