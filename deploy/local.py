"""Replicas of ``council-ai serve`` behind nginx on this machine (``make deploy-local``).

Starts N replicas on free ports (sharing one seal key file, so that a sealed game moves
freely between them), renders ``deploy/nginx/council.conf`` with their
ports into ``build/deploy/nginx.conf`` and runs nginx in front: gRPC on ``--grpc``, Connect,
gRPC-Web and the page on ``--http``. A replica that exits (a crash, a kill, its own
SIGTERM) is started again on its ports (`Supervisor`), a line on stderr saying so, while
nginx sends its calls to the others: losing one replica is not an outage. Ctrl-C (or
SIGTERM to this script) stops them all, the replicas draining as ``council-ai serve``
does. Flags after ``--`` go to every replica::

    python deploy/local.py --replicas 3 -- --workers 1 --grace 10

tests/deploy/test_balancer.py drives the same functions. nginx is Debian's (``make nginx``).

>>> print(render_servers(["127.0.0.1:50061", "127.0.0.1:50062"]))
        server 127.0.0.1:50061 max_fails=1 fail_timeout=10s;
        server 127.0.0.1:50062 max_fails=1 fail_timeout=10s;
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "nginx" / "council.conf"
ROOT = HERE.parent
# How long a replica that failed a call is left out (nginx's passive health check).
FAIL_TIMEOUT_S = 10


def find_nginx() -> str:
    """The nginx program (Debian puts it in /usr/sbin, off a user's PATH)."""
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        raise RuntimeError("nginx is missing: run `make nginx` (installs Debian's nginx)")
    return found


def render_servers(addresses: list[str], fail_timeout_s: int = FAIL_TIMEOUT_S) -> str:
    """The ``server`` lines of an upstream block, one per replica address."""
    return "\n".join(
        f"        server {a} max_fails=1 fail_timeout={fail_timeout_s}s;" for a in addresses
    )


def render(
    prefix: Path,
    grpc_listen: str,
    http_listen: str,
    grpc: list[str],
    http: list[str],
    fail_timeout_s: int = FAIL_TIMEOUT_S,
) -> str:
    """deploy/nginx/council.conf with its fields filled in."""
    fields = {
        "@PREFIX@": str(prefix),
        "@GRPC_LISTEN@": grpc_listen,
        "@HTTP_LISTEN@": http_listen,
        "@GRPC_SERVERS@": render_servers(grpc, fail_timeout_s),
        "@HTTP_SERVERS@": render_servers(http, fail_timeout_s),
    }
    text = TEMPLATE.read_text()
    for name, value in fields.items():
        text = text.replace(name, value)
    return text


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Replica:
    """One ``council-ai serve`` child on free ports: `ready` is the JSON line it printed
    once listening (``listening``, ``http``, ``pid``, ...). `restart` starts it again on
    the same ports."""

    def __init__(self, state_home: Path, flags: list[str], stderr=None):
        # Every connection is nginx's: the limit per client address is nginx's (the
        # template's limit_conn). Flags given after it may set another.
        flags = ["--max-http-connections-per-address", "0", *flags]
        self.state_home, self.flags, self.stderr = state_home, flags, stderr
        self.ready: dict = {}
        self.address = self.http_address = ""
        self.process = self._start("127.0.0.1:0", "127.0.0.1:0")

    def _start(self, address: str, http_address: str) -> subprocess.Popen:
        env = {**os.environ, "XDG_STATE_HOME": str(self.state_home)}
        return subprocess.Popen(
            [sys.executable, "-m", "council.server.cli", "serve", "--address", address]
            + ["--http-address", http_address, *self.flags],
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            env=env,
            start_new_session=True,  # a terminal's Ctrl-C reaches only deploy/local.py
        )

    def wait_ready(self) -> Replica:
        """Wait for its line saying it listens (ready, address, http_address)."""
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"council-ai serve exited ({self.process.wait()}) before listening")
        self.ready = json.loads(line)
        self.address = self.ready["listening"]
        self.http_address = self.ready["http"]
        return self

    def restart(self) -> Replica:
        """Start it again (it has exited) on the ports nginx knows, and wait until it
        listens; RuntimeError if it exits first (a port taken meanwhile, say)."""
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.process = self._start(self.address, self.http_address)
        return self.wait_ready()

    def signal(self, signum: int) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signum)

    def close(self, timeout: float = 30) -> int:
        """Stop it (SIGTERM: it drains) and wait; killed if still running after `timeout`."""
        self.signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        return code


class Supervisor:
    """Starts again each replica that exits, on its own ports, saying so on `out`. A
    replica that exits again within `STEADY_S` of its start waits twice as long as last
    time before the next start (from `FIRST_WAIT_S` up to `MAX_WAIT_S`): a replica that
    cannot start is not restarted in a tight loop. `step` looks once; `run` until `stop`."""

    FIRST_WAIT_S = 0.5
    MAX_WAIT_S = 30.0
    STEADY_S = 30.0

    def __init__(self, replicas: list[Replica], out=sys.stderr):
        self.replicas = replicas
        self.out = out
        self.restarts = [0] * len(replicas)  # how many times each was started again
        self._wait = [0.0] * len(replicas)  # before its next start
        self._started = [time.monotonic()] * len(replicas)
        self._due: list[float | None] = [None] * len(replicas)  # when to start it again

    def step(self) -> None:
        now = time.monotonic()
        for i, replica in enumerate(self.replicas):
            code = replica.process.poll()
            if code is None:
                continue
            if self._due[i] is None:
                steady = now - self._started[i] >= self.STEADY_S
                wait = self.FIRST_WAIT_S if steady or not self._wait[i] else self._wait[i] * 2
                self._wait[i] = min(wait, self.MAX_WAIT_S)
                self._due[i] = now + self._wait[i]
                self._say(
                    f"replica {i} ({replica.address}, http {replica.http_address}) exited "
                    f"with code {code}; nginx sends its calls to the others; starting it "
                    f"again in {self._wait[i]:g} s"
                )
            due = self._due[i]
            if due is not None and now >= due:
                self._due[i] = None
                self._started[i] = time.monotonic()
                try:
                    replica.restart()
                except (RuntimeError, ValueError) as error:
                    self._say(f"replica {i} did not start again: {error}")
                    continue
                self.restarts[i] += 1
                self._say(f"replica {i} serves again (pid {replica.ready.get('pid')})")

    def run(self, stop: threading.Event, every_s: float = 0.1) -> None:
        while not stop.wait(every_s):
            self.step()

    def _say(self, text: str) -> None:
        print(f"deploy-local: {text}", file=self.out, flush=True)


def start_replicas(count: int, state_home: Path, flags=(), stderr=None) -> list[Replica]:
    """`count` replicas with `state_home` as their state folder, sharing one seal key file
    there (as replicas share a mounted secret: a sealed game may move between them).
    `flags` may be a list per replica (a list of lists) or one list."""
    from council.server import sealing

    keys = state_home / "seal-keys"
    if not keys.exists():
        state_home.mkdir(parents=True, exist_ok=True)
        keys.touch(mode=0o600)
        keys.write_text(sealing.new_key_line() + "\n")
    per = [list(f) for f in flags] if flags and not isinstance(flags[0], str) else None
    replicas: list[Replica] = []
    try:
        for i in range(count):
            own = per[i] if per else list(flags)
            replicas.append(Replica(state_home, ["--seal-key-file", str(keys), *own], stderr))
        for replica in replicas:
            replica.wait_ready()
    except BaseException:
        for replica in replicas:
            replica.close(timeout=5)
        raise
    return replicas


class Nginx:
    """nginx in the foreground with a config rendered for `replicas` into `prefix`."""

    def __init__(
        self,
        prefix: Path,
        replicas: list[Replica],
        grpc_listen: str,
        http_listen: str,
        fail_timeout_s: int = FAIL_TIMEOUT_S,
    ):
        self.prefix = prefix
        for sub in ("tmp/body", "tmp/proxy", "tmp/fastcgi", "tmp/uwsgi", "tmp/scgi"):
            (prefix / sub).mkdir(parents=True, exist_ok=True)
        self.config = prefix / "nginx.conf"
        self.config.write_text(
            render(
                prefix,
                grpc_listen,
                http_listen,
                [r.address for r in replicas],
                [r.http_address for r in replicas],
                fail_timeout_s,
            )
        )
        self.access_log = prefix / "access.log"
        self.grpc_listen, self.http_listen = grpc_listen, http_listen
        nginx = find_nginx()
        # Started as root, nginx would run its workers as `nobody`, who may not enter a
        # private build folder; a local run keeps them as the user who started it.
        directives = "daemon off;" + (" user root;" if os.geteuid() == 0 else "")
        command = [nginx, "-p", str(prefix), "-c", str(self.config), "-e", "error.log"]
        check = subprocess.run([*command, "-t", "-q"], capture_output=True, text=True)
        if check.returncode:
            raise RuntimeError(f"nginx refused {self.config}: {check.stderr.strip()}")
        self.process = subprocess.Popen([*command, "-g", directives], start_new_session=True)
        deadline = time.monotonic() + 10
        for listen in (grpc_listen, http_listen):
            host, _, port = listen.rpartition(":")
            while True:
                try:
                    socket.create_connection((host, int(port)), timeout=1).close()
                    break
                except OSError:
                    if self.process.poll() is not None or time.monotonic() > deadline:
                        self.close()
                        raise RuntimeError(f"nginx did not listen on {listen}") from None
                    time.sleep(0.02)

    def log_lines(self) -> list[str]:
        return self.access_log.read_text().splitlines() if self.access_log.exists() else []

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: open calls finish
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--grpc", default="127.0.0.1:50051", help="nginx's gRPC listen address")
    parser.add_argument("--http", default="127.0.0.1:8080", help="nginx's HTTP listen address")
    parser.add_argument("--dir", type=Path, default=ROOT / "build" / "deploy")
    parser.add_argument("serve_flags", nargs="*", help="flags for every replica (after --)")
    args = parser.parse_args(argv)
    try:
        find_nginx()
    except RuntimeError as error:
        print(f"deploy-local: {error}", file=sys.stderr)
        return 1
    args.dir.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    replicas = start_replicas(args.replicas, args.dir.resolve() / "state", args.serve_flags)
    nginx = None
    try:
        nginx = Nginx(args.dir.resolve(), replicas, args.grpc, args.http)
        summary = {
            "grpc": args.grpc,
            "http": args.http,
            "page": f"http://{args.http}/",
            "replicas": [{k: r.ready[k] for k in ("listening", "http", "pid")} for r in replicas],
            "nginx_config": str(nginx.config),
            "access_log": str(nginx.access_log),
        }
        print(json.dumps(summary), flush=True)
        supervisor = Supervisor(replicas)
        while not stop.wait(0.1):
            supervisor.step()
            if nginx.process.poll() is not None:
                print("deploy-local: nginx exited; stopping", file=sys.stderr)
                break
    finally:
        # The replicas drain (their running calls still answered through nginx), then nginx.
        for replica in replicas:
            replica.signal(signal.SIGTERM)
        for replica in replicas:
            replica.close()
        if nginx is not None:
            nginx.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
