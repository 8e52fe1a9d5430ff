"""The ``council-ai`` command line.

``council-ai serve`` runs the gRPC opponent service; ``council-ai hint`` sends a JSON
position to it and prints the recommendation; ``council-ai new-game`` prints a JSON
position to start from; ``council-ai render`` draws a JSON position as SVG or PNG;
``council-ai demo`` plays and prints a seeded demo game between
random players; ``council-ai arena`` plays seeded matches between agents and prints their
win rates; ``council-ai review`` reviews a recorded game (council.server.review_cli).
``council-ai selfplay``, ``train`` and ``train-policy`` come from the training
package (council.learning.cli, docs/learning.md). The AI-vs-AI ladder has its own command,
``council-ladder`` (council.ladder.cli, docs/ladder.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import re
import sys

from council.engine.games import (
    DEFAULT_GAME,
    Game,
    all_games,
    default_game,
    game_named,
    game_of_proto,
    use_content_file,
)
from council.learning.cli import add_commands as add_learning_commands
from council.server.review_cli import add_command as add_review_command

# Each command imports the heavier modules it needs (the search and numpy, grpc, protobuf) in
# its own function: they take longer to load than `demo` or `new-game` take to run, and
# `--help` or a mistyped flag should answer at once.

_DEFAULT_CONFIG = default_game().config_class()


class _ServerDefault:
    """The default of a flag that sets a ServerConfig field: that field's default. It is
    looked up only when --help shows it, so that parsing does not import the server; `serve`
    leaves a flag still holding one out of its ServerConfig, whose own default then applies."""

    def __init__(self, field: str):
        self.field = field

    def __str__(self) -> str:
        from council.server.config import ServerConfig

        return str(getattr(ServerConfig(), self.field))


def _config(game: Game, args: argparse.Namespace):
    """The game's configuration from a command's flags: each field of its config class from
    the flag of the same name where the command has one and it is given (None: not given,
    the game's default). A given flag of another game's setting (a rule variant of one game
    given for another) is refused, naming that game (ValueError)."""
    own = {f.name for f in dataclasses.fields(game.config_class)}
    for other in all_games():
        for f in dataclasses.fields(other.config_class):
            if f.name not in own and getattr(args, f.name, None) is not None:
                flag = "--" + f.name.replace("_", "-")
                raise ValueError(f"{flag} is a rule variant of {other.display_name}")
    if getattr(args, "content", None):
        use_content_file(args.content, game.name)
    values = {name: getattr(args, name) for name in own if getattr(args, name, None) is not None}
    return game.config_class(**values).validate()


def _add_content_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--content",
        metavar="FILE",
        help="the game's content file (its map and cards), for a game played on content "
        "(default: the game's bundled set)",
    )


def _seats_problem(game: Game, seats: int) -> str | None:
    if seats in game.players:
        return None
    return f"{game.display_name} seats {game.min_players} to {game.max_players}, got {seats}"


def demo(args: argparse.Namespace) -> int:
    """Play one seeded game of any registered game with uniformly random legal actions and
    print it: the start, every action (routine ones, such as the end of a turn, only with
    --verbose) and the end."""
    game = game_named(args.game)
    try:
        problem = None if args.players is None else _seats_problem(game, args.players)
        if problem:
            raise ValueError(problem)
        config = _config(game, args)
    except ValueError as error:
        print(f"council-ai demo: {error}", file=sys.stderr)
        return 2
    state = game.new_game(config, seed=args.seed)
    chooser = random.Random(args.seed)
    settings = "".join(  # the settings of its flags besides the seats (a board layout)
        f", {f.name} {getattr(config, f.name)}"
        for f in dataclasses.fields(config)
        if f.name != "players" and hasattr(args, f.name)
    )
    print(f"{game.display_name} demo: {config.players} random players{settings}, seed {args.seed}")
    print(state)
    while not state.is_terminal():
        label, seat = game.progress(state), state.current_player
        action = chooser.choice(state.legal_actions())
        text = state.action_to_text(action)
        routine = game.routine(state, action)
        state.apply(action)
        if args.verbose or not routine:
            print(f"{label}  seat {seat}  {text}")
    print()
    print(state)
    print(f"final scores: {state.scores()}  winners: {state.winners()}")
    return 0


def arena(args: argparse.Namespace) -> int:
    """Play seeded deals between agents with seat rotation and print the statistics."""
    from council.mcts.agents import parse_agent
    from council.mcts.arena import run_arena

    game = game_named(args.game)
    if _seats_problem(game, len(args.agents)):
        print(
            f"council-ai arena: name one agent per seat, {game.min_players} to "
            f"{game.max_players} agents (e.g. 'council-ai arena random greedy'); got "
            f"{len(args.agents)}: {' '.join(args.agents)}",
            file=sys.stderr,
        )
        return 2
    try:
        lineup = [parse_agent(spec, args.game) for spec in args.agents]
        args.players = len(lineup)
        config = _config(game, args)
    except ValueError as error:
        print(f"council-ai arena: {error}", file=sys.stderr)
        return 2
    report = run_arena(
        lineup,
        deals=args.deals,
        seed=args.seed,
        config=config,
        workers=args.workers,
        progress=not args.no_progress,
        record_dir=args.record,
        specs=args.agents,
    )
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.to_text())
    return 0


# -- the service ---------------------------------------------------------------------------


def _message_json(message) -> str:
    from google.protobuf import json_format

    return json_format.MessageToJson(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


def _page_address(running) -> str | None:
    """The web page's address on the HTTP port (None without one): ``http(s)://host:port/``.

    >>> from types import SimpleNamespace as NS
    >>> _page_address(NS(http_address="0.0.0.0:8080", config=NS(tls_cert=None)))
    'http://127.0.0.1:8080/'
    >>> _page_address(NS(http_address="[::]:8443", config=NS(tls_cert="c.pem")))
    'https://[::1]:8443/'
    """
    address = running.http_address
    if not address:
        return None
    host, _, port = address.rpartition(":")
    # A wildcard address is reachable on this machine through the loopback one.
    host = {"0.0.0.0": "127.0.0.1", "[::]": "[::1]", "": "127.0.0.1"}.get(host, host)
    scheme = "https" if running.config.tls_cert else "http"
    return f"{scheme}://{host}:{port}/"


def serve(args: argparse.Namespace) -> int:
    """Run the gRPC service until SIGTERM / Ctrl-C."""
    from council.server import logs
    from council.server.app import serve as run
    from council.server.config import ServerConfig, parse_tokens
    from council.server.game_store import GameStoreUnavailable

    logs.configure(args.log_format)  # text: "%(asctime)s %(name)s %(message)s", as before
    tokens: tuple[str, ...] = ()
    if os.environ.get("COUNCIL_AUTH_TOKEN", "").strip():
        tokens = (os.environ["COUNCIL_AUTH_TOKEN"].strip(),)
    if args.auth_token_file:
        with open(args.auth_token_file) as f:
            tokens = parse_tokens(f.read())
        if not tokens:  # else the server would run open, which the file meant to prevent
            print(f"council-ai serve: {args.auth_token_file} holds no token", file=sys.stderr)
            return 2
    if args.access_log is None:
        args.access_log = args.log_format == "json"
    fields = {f.name for f in dataclasses.fields(ServerConfig)}
    given = {
        name: value
        for name, value in vars(args).items()
        if name in fields and not isinstance(value, _ServerDefault)
    }
    given["content"] = tuple(args.content or ())
    try:
        seal_keys = _seal_keys(args)
        config = ServerConfig(**given, auth_tokens=tokens, seal_keys=seal_keys).resolved()
        for entry in config.content:  # a bad file is named here, before anything listens
            use_content_file(entry)
    except (ValueError, OSError) as error:
        print(f"council-ai serve: {error}", file=sys.stderr)
        return 2

    def ready(running):
        c = running.config
        print(
            json.dumps(
                {
                    "listening": running.address,
                    "http": running.http_address,
                    "metrics": running.metrics_address,  # None: /metrics on the HTTP port
                    # The page (server/web/), on the HTTP port when there is one.
                    "page": _page_address(running),
                    "search_slots": c.search_slots,
                    "search_queue": c.search_queue,
                    "max_searches_per_caller": c.searches_per_caller,
                    "tls": bool(c.tls_cert),
                    "auth": bool(c.tokens),
                    "pid": os.getpid(),
                }
            ),
            flush=True,
        )

    try:
        return run(config, ready=ready, exit_process=True)
    except GameStoreUnavailable as error:  # raised at the start only: once running, a call
        print(f"council-ai serve: --no-rewind: {error}", file=sys.stderr)  # gets UNAVAILABLE
        return 2


def _seal_keys(args: argparse.Namespace):
    """The sealed games' key ring of `serve`: --seal-key-file, else $COUNCIL_SEAL_KEYS, else
    the key file under the user's state folder, created with a fresh key the first time
    (so that sealed games outlive a restart). ValueError or OSError if unreadable."""
    import logging

    from council.server import sealing

    if args.seal_key_file:
        with open(args.seal_key_file) as f:
            return sealing.SealKeys.parse(f.read())
    if os.environ.get(sealing.ENV_KEYS):
        return sealing.SealKeys.parse(os.environ[sealing.ENV_KEYS])
    path = sealing.default_key_file()
    keys, created = sealing.load_or_create_key_file(path)
    said = "created a new seal key in" if created else "seal keys from"
    logging.getLogger("council.server").info("%s %s (--seal-key-file to choose)", said, path)
    return keys


def seal_key(args: argparse.Namespace) -> int:
    """Print a key file line with a fresh random key (`serve --seal-key-file`)."""
    from council.server.sealing import new_key_line

    print(new_key_line(args.key_id))
    return 0


def _read_position_json(path: str):
    """The JSON form of a position from a file or stdin ("-"): as new-game prints it
    (docs/state-json.md), or the `state` of a whole NewGame / ApplyAction / GetView
    response. ValueError if it is not JSON."""
    if path == "-":
        text = sys.stdin.read()
    else:
        with open(path) as f:
            text = f.read()
    try:
        obj = json.loads(text)
    except ValueError as error:
        raise ValueError(f"not JSON: {error}") from None
    if isinstance(obj, dict) and "state" in obj and "board" not in obj:
        obj = obj["state"]  # a whole response
    return obj


def _read_state(path: str):
    """A GameState message from a file or stdin (``_read_position_json``). Only its shape
    is checked here; the server validates the position (a partial state is the seat's
    view)."""
    from google.protobuf import json_format

    from council.engine.serialize import schema_problems
    from council.v1 import game_pb2

    obj = _read_position_json(path)
    found = schema_problems(obj, game_pb2.GameState.DESCRIPTOR)
    if found:
        raise ValueError("; ".join(f"{field}: {problem}" for field, problem in found))
    return json_format.ParseDict(obj, game_pb2.GameState())


def _channel(args):
    import grpc

    from council.server.client import channel_options  # retries, balancing (docs/deploy.md)

    if args.tls_ca:
        with open(args.tls_ca, "rb") as f:
            credentials = grpc.ssl_channel_credentials(root_certificates=f.read())
        return grpc.secure_channel(str(args.address), credentials, channel_options())
    return grpc.insecure_channel(str(args.address), channel_options())


def hint(args: argparse.Namespace) -> int:
    """Send a position to the service and print its recommendation."""
    import grpc

    from council.server.client import bearer_metadata, field_violations, recommend_request
    from council.v1 import service_pb2_grpc

    try:
        request = recommend_request(
            _read_state(args.state),
            seat=args.seat,
            preset=args.preset,
            iterations=args.iterations,
            time_s=args.time,
            seed=args.seed,
            max_candidates=args.candidates,
        )
    except (OSError, ValueError) as error:
        print(f"council-ai hint: {error}", file=sys.stderr)
        return 2
    metadata = bearer_metadata(args.token or os.environ.get("COUNCIL_AUTH_TOKEN"))
    with _channel(args) as channel:
        stub = service_pb2_grpc.CouncilServiceStub(channel)
        try:
            response = stub.RecommendAction(request, timeout=args.timeout, metadata=metadata)
        except grpc.RpcError as error:
            _print_rpc_error("council-ai hint", error, field_violations(error))
            return 1
    if args.json:
        print(_message_json(response))
        return 0
    print(format_hint(response.result, game_of_proto(request.state.config.game).name))
    print(_search_summary(response.result.stats, response.result.seed, args.timeout))
    return 0


def format_hint(result, game: str) -> str:
    """A hint for people: the candidates under headings (move, the probability the bot
    plays it, win %, points in the game's unit), the recommended move first, then by that
    probability (the candidate's ``policy``, the chance the search plays it, else its share
    of the visits); the line without the turns' bare "end" steps. The pokers' win
    probability is their chips rescaled, so their hint is in chips alone."""
    known = game_named(game)
    unit, factor, with_win = known.points_unit, known.points_per_margin, not known.reward_is_points
    visits = sum(c.visits for c in result.candidates) or 1

    # The search's own policy when it gives one (CandidateMove.policy), else visit shares.
    with_policy = any(c.policy for c in result.candidates)

    def played(c) -> float:
        return float(c.policy) if with_policy else c.visits / visits

    ordered = sorted(result.candidates, key=lambda c: (c.action.id != result.action.id, -played(c)))
    lines = [f"seat {result.seat}: {result.action.text}  (action {result.action.id})"]
    lines.append(
        f"{'move':<34} {'plays it':>8}" + (f" {'win %':>6}" if with_win else "") + f" {unit:>7}"
    )
    for c in ordered:
        win = f" {100 * c.win_probability:>6.0f}" if with_win else ""
        lines.append(
            f"{c.action.text:<34} {100 * played(c):>7.0f}%{win} {factor * c.vp_margin:>+7.2f}"
        )
    steps = [a.text for a in result.principal_variation if a.text != "end"]
    lines.append(f"line: {' / '.join(steps[:8])}")
    return "\n".join(lines)


def _print_rpc_error(prog: str, error, violations: list[tuple[str, str]]) -> None:
    """A failed call on stderr: its code and message, then each field violation once. The
    service's INVALID_ARGUMENT message already lists the first violations (errors.invalid)
    and its BadRequest details hold them all: the parts of the message that are a listed
    violation (or "and N more") are not printed again."""
    details = error.details() or ""
    if violations:
        listed = [f"{field}: {problem}" for field, problem in violations]

        def repeated(part: str) -> bool:  # a listed violation, maybe cut short ("...…")
            cut = part.removesuffix("…")
            return any(v == part or (cut != part and v.startswith(cut)) for v in listed)

        rest = [
            part
            for part in details.split("; ")
            if part and not repeated(part) and not re.fullmatch(r"and \d+ more", part)
        ]
        count = f"{len(violations)} field violation{'s' if len(violations) > 1 else ''}"
        details = "; ".join([*rest, count])
    print(f"{prog}: {error.code().name}: {details}", file=sys.stderr)
    for field, problem in violations:
        print(f"  {field}: {problem}", file=sys.stderr)


def _search_summary(stats, seed: int, timeout: float) -> str:
    """The search's figures and why it stopped (the response's stop reason): said first
    when the search did not spend its budget, because the call's deadline (--timeout, less
    the server's margin) cut it short or the call was cancelled."""
    from council.v1 import game_pb2 as pb

    elapsed = stats.elapsed.ToNanoseconds() / 1e9
    done = f"{stats.iterations} iterations in {elapsed:.3f} s"
    reason = stats.stop_reason
    if reason == pb.STOP_REASON_DEADLINE:
        return (
            f"stopped by the deadline after {done}, before its budget was spent (--timeout "
            f"{timeout:g} s: raise it for the full search); seed {seed}"
        )
    if reason == pb.STOP_REASON_CANCELLED:
        return f"cancelled after {done}, before its budget was spent; seed {seed}"
    why = {
        pb.STOP_REASON_ITERATIONS: "iteration budget spent",
        pb.STOP_REASON_TIME: "time budget spent",
        pb.STOP_REASON_ONLY_MOVE: "the only legal action",
    }.get(reason)
    return f"{done}, seed {seed}" + (f" ({why})" if why else "")


def new_game(args: argparse.Namespace) -> int:
    """Print the JSON of a new game's starting state (or one seat's view of it)."""
    from council.engine.serialize import dumps

    try:
        game = game_named(args.game)
        state = game.new_game(_config(game, args), seed=args.seed)
        if args.view is not None:
            state = state.view(args.view)
    except ValueError as error:
        print(f"council-ai new-game: {error}", file=sys.stderr)
        return 2
    print(dumps(state, indent=2))
    return 0


def render(args: argparse.Namespace) -> int:
    """Draw a JSON position (a full state or a view) as SVG, or PNG (docs/render.md)."""
    from council.engine.games import game_of
    from council.engine.serialize import state_from_json
    from council.engine.text_svg import svg_to_png

    png = args.png or (args.output or "").lower().endswith(".png")
    try:
        state = state_from_json(_read_position_json(args.state))
        if args.seat is not None and state.viewer != args.seat:
            if state.is_view:
                raise ValueError(f"this is seat {state.viewer}'s view, not seat {args.seat}'s")
            if not 0 <= args.seat < state.n_players:
                raise ValueError(f"--seat must be in 0..{state.n_players - 1}")
            state = state.view(args.seat)
        svg = game_of(state).render_svg(state)
        data = svg_to_png(svg, scale=args.scale) if png else svg.encode()
    except (OSError, ValueError, RuntimeError) as error:
        print(f"council-ai render: {error}", file=sys.stderr)
        return 2
    if args.output in (None, "-"):
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
    else:
        with open(args.output, "wb") as f:
            f.write(data)
    return 0


def _add_game_flag(parser: argparse.ArgumentParser) -> None:
    games = all_games()
    parser.add_argument(
        "--game",
        choices=tuple(g.name for g in games),
        default=DEFAULT_GAME,
        help="the game: "
        + ", ".join(f"{g.name} ({g.display_name})" for g in games)
        + " (default: %(default)s)",
    )


def _seat_counts() -> tuple[int, ...]:
    """Every registered game's seat counts."""
    return tuple(sorted({n for g in all_games() for n in g.players}))


def _config_fields() -> dict[str, dataclasses.Field]:
    """Every field of every registered game's configuration, by name (the first game's
    where two share a name): new-game's flags."""
    fields: dict[str, dataclasses.Field] = {}
    for game in all_games():
        for f in dataclasses.fields(game.config_class):
            fields.setdefault(f.name, f)
    return fields


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="council-ai", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="play and print a seeded demo game")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--players",
        type=int,
        choices=_seat_counts(),
        help="seats (default: the game's): "
        + "; ".join(f"{g.display_name} {g.min_players} to {g.max_players}" for g in all_games()),
    )
    p.add_argument(
        "--layout",
        help=f"board sides for coast, hills, mountains (default: {_DEFAULT_CONFIG.layout})",
    )
    p.add_argument(
        "--verbose",
        action="store_true",
        help="also print the routine actions (every end of turn, every chip of a bid)",
    )
    _add_game_flag(p)
    _add_content_flag(p)
    p.set_defaults(func=demo)

    p = sub.add_parser(
        "arena",
        help="play seeded matches between agents (one per seat, rotated over the seats)",
        description="Agents: random, greedy, expert, ismcts, ismcts-v1, strong-v3, pimc, cheat, "
        "with options after a colon, "
        "e.g. ismcts:iterations=1000 or pimc:worlds=4,time_s=0.2 (another --game has its "
        "own: a name it lacks lists them). Name one per seat; "
        "each deal is played once per rotation of the seats.",
    )
    p.add_argument("agents", nargs="+", help="one agent spec per seat (as many as the game seats)")
    _add_game_flag(p)
    p.add_argument("--deals", type=int, default=10, help="seeded deals (games = deals x seats)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--layout", help=f"board sides (default: {_DEFAULT_CONFIG.layout})")
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument(
        "--record",
        metavar="DIR",
        help="write each game's record to DIR/<game>-<deal>-<n>.json (council.engine.record)",
    )
    _add_content_flag(p)
    p.set_defaults(func=arena)

    add_learning_commands(sub)  # selfplay, train, train-policy
    add_review_command(sub)  # review (council.server.review_cli)

    p = sub.add_parser(
        "serve",
        help="run the gRPC opponent service",
        description="Run the council.v1.CouncilService gRPC service (with health and "
        "reflection) until SIGTERM or Ctrl-C. Prints one JSON line once listening.",
    )
    # Each flag's dest is the ServerConfig field it sets.
    for flag, kind, field, what in (
        ("--address", str, "address", "host:port (port 0: any free)"),
        ("--workers", int, "search_slots", "searches running at once (0: one per CPU core)"),
        ("--queue", int, "search_queue", "searches waiting for a worker (-1: 2 x workers)"),
        (
            "--max-searches-per-caller",
            int,
            "max_searches_per_caller",
            "searches one caller (bearer token, else connection) may have running or queued "
            "(0: workers, or workers - 1 without a queue)",
        ),
        (
            "--max-queue-wait",
            float,
            "max_queue_wait_s",
            "seconds a queued search waits before the newest search of a caller running two "
            "more is stopped (answering its best action so far)",
        ),
        ("--backlog", int, "call_backlog", "calls waiting for a thread before any is refused"),
        ("--max-iterations", int, "max_iterations", "iterations per search at most"),
        ("--max-search-time", float, "max_search_time_s", "seconds per search at most"),
        ("--default-preset", str, "default_preset", "preset when a call sets no limit"),
        ("--grace", float, "grace_s", "seconds in-flight calls get on stop"),
        ("--seal-ttl", float, "seal_ttl_s", "seconds a sealed game's state stays valid"),
        ("--header-timeout", float, "http_header_timeout_s", "HTTP: seconds to send a head"),
        ("--body-timeout", float, "http_body_timeout_s", "HTTP: seconds to send a body"),
        ("--keep-alive-timeout", float, "http_keep_alive_s", "HTTP: idle connection seconds"),
        ("--max-http-connections", int, "max_http_connections", "HTTP: open connections"),
        (
            "--max-http-connections-per-address",
            int,
            "max_http_connections_per_address",
            "HTTP: open connections from one client address (0: no such cap; behind a "
            "proxy, every connection is the proxy's)",
        ),
    ):
        p.add_argument(
            flag,
            dest=field,
            metavar=flag[2:].upper().replace("-", "_"),
            type=kind,
            default=_ServerDefault(field),
            help=what + " (default: %(default)s)",
        )
    p.add_argument(
        "--content",
        action="append",
        metavar="[GAME=]FILE",
        help="a content file (a map and cards) for the game played on content (GAME= names "
        "it); repeat for more games (default: each game's bundled set)",
    )
    p.add_argument(
        "--auth-token-file",
        help="require 'authorization: Bearer <token>' of a token in this file: one per line "
        "(a client each), blank lines and '#' comments ignored (or set COUNCIL_AUTH_TOKEN "
        "to a single token)",
    )
    p.add_argument(
        "--seal-key-file",
        help="sealed games' keys, 'KEY_ID BASE64KEY' per line, the first sealing (or set "
        "COUNCIL_SEAL_KEYS; default: a key kept in ~/.local/state/council-ai/seal-keys)",
    )
    p.add_argument(
        "--no-rewind",
        action="store_true",
        help="strict mode: keep each sealed game's latest move in a store and refuse an older "
        "blob of the game (FAILED_PRECONDITION), so that no one can play from a position the "
        "game has left (docs/service.md, 'Strict mode: --no-rewind')",
    )
    p.add_argument(
        "--game-store",
        metavar="URL",
        help="--no-rewind's store: sqlite:///PATH (one machine) or redis://HOST:PORT/DB, "
        "rediss://..., unix:///PATH.sock (Redis, shared by replicas); default: the file "
        "games.sqlite3 beside the default seal keys (~/.local/state/council-ai)",
    )
    p.add_argument("--tls-cert", help="PEM certificate chain (TLS on)")
    p.add_argument("--tls-key", help="PEM private key")
    p.add_argument(
        "--http-address",
        metavar="HTTP_ADDRESS",
        type=lambda text: text or None,
        default="127.0.0.1:8080",  # config.DEFAULT_HTTP_ADDRESS (ServerConfig's is None)
        help="host:port of the same RPCs over HTTP, Connect protocol with JSON or binary "
        "(docs/service.md, 'Front-ends'); '' for none (default: %(default)s)",
    )
    p.add_argument(
        "--cors-origins",
        metavar="ORIGINS",
        type=lambda text: tuple(o.strip() for o in text.split(",") if o.strip()),
        help="comma-separated origins whose browser pages may call the HTTP server, '*' for "
        "any, '' for none (default: pages served from this machine: http(s)://localhost, "
        "127.x.x.x or [::1] on any port)",
    )
    p.add_argument(
        "--allowed-hosts",
        metavar="HOSTS",
        type=lambda text: tuple(h.strip() for h in text.split(",") if h.strip()),
        help="comma-separated Host names the HTTP server answers besides localhost, "
        "127.x.x.x and [::1], '*' for any (default: on a loopback address only those, "
        "against DNS rebinding; on another address any)",
    )
    p.add_argument(
        "--metrics-address",
        metavar="METRICS_ADDRESS",
        type=lambda text: text or None,
        help="host:port of a listener of its own for Prometheus' GET /metrics, no token asked "
        "(then not on the HTTP port, where a server with tokens asks one; docs/metrics.md)",
    )
    p.add_argument(
        "--log-format",
        choices=("text", "json"),
        default="text",
        help="stderr's lines: text, or one JSON object per line (default: %(default)s)",
    )
    p.add_argument(
        "--access-log",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a line per call: RPC, transport, status, duration, caller key, request id "
        "(default: on with --log-format json, for a log collector; off with text, for a "
        "terminal)",
    )
    p.set_defaults(func=serve)

    p = sub.add_parser(
        "seal-key",
        help="print a new seal key line for serve --seal-key-file",
        description="Print 'KEY_ID BASE64KEY' with a fresh random AES-256 key: put it first "
        "in the --seal-key-file to rotate (keep the old lines while their games go on).",
    )
    p.add_argument("--key-id", help="the key's id (default: k<date>-<random>)")
    p.set_defaults(func=seal_key)

    p = sub.add_parser(
        "hint",
        help="send a JSON position to the service and print the recommended action",
    )
    p.add_argument("state", nargs="?", default="-", help="JSON file ('-' or none: stdin)")
    p.add_argument("--address", default=_ServerDefault("address"), help="default: %(default)s")
    p.add_argument("--preset", help="beginner, casual or strong")
    p.add_argument("--iterations", type=int)
    p.add_argument("--time", type=float, help="search seconds")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--seat", type=int, help="requesting seat (default: the seat to move)")
    p.add_argument("--candidates", type=int, default=5, help="alternatives to show (0: all)")
    p.add_argument("--timeout", type=float, default=60.0, help="RPC deadline in seconds")
    p.add_argument("--token", help="bearer token (or COUNCIL_AUTH_TOKEN)")
    p.add_argument("--tls-ca", help="PEM root certificate: connect with TLS")
    p.add_argument("--json", action="store_true", help="print the response as protobuf JSON")
    p.set_defaults(func=hint)

    p = sub.add_parser("new-game", help="print the JSON of a new game's starting state")
    # One flag per field of every game's configuration; one left out takes the game's default.
    for f in _config_fields().values():
        flag = "--" + f.name.replace("_", "-")
        what = f"default: {f.default}"
        if isinstance(f.default, bool):  # --permit-tie-all-score / --no-permit-tie-all-score
            p.add_argument(flag, action=argparse.BooleanOptionalAction, help=what)
        else:
            p.add_argument(flag, type=type(f.default), help=what)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--view", type=int, help="print this seat's view instead of the full state")
    _add_game_flag(p)
    _add_content_flag(p)
    p.set_defaults(func=new_game)

    p = sub.add_parser(
        "render",
        help="draw a JSON position as SVG (or PNG)",
        description="Draw a position (its JSON form, as new-game prints it, or a whole "
        "NewGame / ApplyAction / GetView response) as an SVG picture of the board.",
    )
    p.add_argument("state", help="JSON file ('-': stdin)")
    p.add_argument("-o", "--output", help="file to write ('-' or none: stdout)")
    p.add_argument("--seat", type=int, help="draw this seat's view (other hands hidden)")
    p.add_argument(
        "--png",
        action="store_true",
        help="write PNG instead of SVG (also when --output ends in .png); needs the "
        "'render' extra, CairoSVG, and the system's cairo library",
    )
    p.add_argument("--scale", type=float, default=1.0, help="PNG size factor (default: 1)")
    p.set_defaults(func=render)
    return parser


def closed_stdout() -> int:
    """What a command does when the reader of its stdout went away early (``council-ai demo
    | head``): no traceback and no more output. Python's recipe: stdout is pointed at
    devnull, so that the flush at exit does not fail again; the exit status is 1."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # stdout is no file (replaced, or closed)
        pass
    return 1


def run_command(parser: argparse.ArgumentParser, argv: list[str] | None) -> int:
    """Parse `argv` and run the chosen subcommand; a reader that closed our output early
    (`council-ai demo | head`) ends it quietly."""
    try:
        args = parser.parse_args(argv)
        code = args.func(args)
        sys.stdout.flush()  # a reader that closed early fails this write here, not at exit
        return code
    except BrokenPipeError:
        return closed_stdout()


def main(argv: list[str] | None = None) -> int:
    return run_command(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
