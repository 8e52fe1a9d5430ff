"""Ladder entrants: built-in agent configurations and remote ``council.v1`` endpoints.

An entrant spec is either an agent spec of ``council.mcts.agents.parse_agent`` for the
ladder's game (``random``, ``greedy``, ``ismcts:iterations=200``, ``pimc:worlds=4`` ...;
each game's agents are its search registration's, ``council.mcts.games``) or a remote
endpoint ``remote:HOST:PORT[,option=value...]`` that speaks ``council.v1.CouncilService``:

=================  ===========================================================================
``preset=NAME``     a strength preset (beginner, casual, strong)
``iterations=N``    an iteration budget (with a preset: it can only shorten it)
``time_s=S``        a search-time budget in seconds (sent as ``limits.max_time``)
``deadline_s=S``    the RPC deadline of every move (default 10 s); past it the seat forfeits
``token_file=P``    send the bearer token read from file P (``authorization: Bearer ...``)
=================  ===========================================================================

A remote seat forfeits when its endpoint answers with an error, answers too late or
answers an illegal action (``Forfeit``); when the endpoint cannot be reached at all (nothing
listens, the connection cannot be made or is lost), the game is void instead
(``Unreachable``): the entrant did not play it, so it is neither rated nor lost.

Either kind may be prefixed with ``NAME@`` to choose the label the standings show, e.g.
``mybot@remote:10.0.0.5:50051,preset=strong``. Without it, a built-in agent is labelled by
``agent_label`` (``ismcts(iterations=200)``) and a remote one by its spec.

>>> e = parse_entrant("ismcts:iterations=200")
>>> e.label, e.spec
('ismcts(iterations=200)', 'ismcts:iterations=200')
>>> r = parse_entrant("bot@remote:127.0.0.1:50051,preset=casual,deadline_s=2")
>>> r.label, r.agent.address, r.agent.preset, r.agent.deadline_s
('bot', '127.0.0.1:50051', 'casual', 2.0)
>>> from council.engine.games import all_games  # each game's expert is its own
>>> len({type(parse_entrant("expert", g.name).agent) for g in all_games()}) == len(all_games())
True
"""

from __future__ import annotations

import queue
import re
import threading
from dataclasses import dataclass, field
from typing import ClassVar

from council.engine import Position
from council.ladder.games import DEFAULT_GAME
from council.mcts.agents import agent_label, parse_agent

__all__ = ["Entrant", "Forfeit", "RemoteAgent", "Unreachable", "parse_entrant"]

DEFAULT_DEADLINE_S = 10.0
# After a call fails with UNAVAILABLE or DEADLINE_EXCEEDED, how long gRPC may take to report
# the channel's state (it does at once).
STATE_WAIT_S = 1.0
_LABEL = re.compile(r"^([A-Za-z0-9_.\-]+)@(.+)$")


class Forfeit(Exception):
    """The seat to move could not produce a legal action: it forfeits the game."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Unreachable(Exception):
    """The seat's endpoint could not be reached (no connection): the game is void, not
    forfeited, because the bot never got to play it."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Entrant:
    """One ladder participant: its label in the standings, the spec it was built from
    and the agent object (a picklable frozen dataclass with ``act(view, seed)``)."""

    label: str
    spec: str
    agent: object

    @property
    def remote(self) -> bool:
        return isinstance(self.agent, RemoteAgent)


@dataclass(frozen=True)
class RemoteAgent:
    """A bot behind a ``council.v1.CouncilService`` endpoint.

    Each move sends the seat's *view* (no other hands, no deck order, no chance state), a
    position of either game, to ``RecommendAction`` with the move's seed and a deadline. A
    call the endpoint answered with an error, a call past its deadline on a live connection,
    or an answer that is not a legal action raises ``Forfeit``. A call that failed with
    UNAVAILABLE or DEADLINE_EXCEEDED while the channel has no connection to the endpoint
    (nothing listens, the host does not answer, the connection was lost) raises
    ``Unreachable``.
    """

    address: str
    preset: str | None = None
    iterations: int | None = None
    time_s: float | None = None
    deadline_s: float = DEFAULT_DEADLINE_S
    token: str | None = field(default=None, repr=False)

    sees_true_state: ClassVar[bool] = False

    def request(self, view: Position, seed: int):
        from council.server.client import recommend_request

        return recommend_request(
            view,
            seat=view.viewer,
            preset=self.preset,
            iterations=self.iterations,
            time_s=self.time_s,
            seed=seed,
            max_candidates=1,
        )

    def act(self, view: Position, seed: int) -> int:
        import grpc

        from council.server.client import bearer_metadata

        request = self.request(view, seed)
        metadata = bearer_metadata(self.token)
        channel, stub = _endpoint(self.address)
        try:
            response = stub.RecommendAction(request, timeout=self.deadline_s, metadata=metadata)
        except grpc.RpcError as error:
            code = error.code()
            reason = f"{code.name if code is not None else 'UNKNOWN'}: {error.details() or ''}"
            no_answer = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
            if code in no_answer and not _connected(channel):
                _forget(self.address, channel)
                raise Unreachable(f"could not reach {self.address}: {reason.strip()}") from None
            raise Forfeit(reason.strip()) from None
        result = response.result
        if result.seat != view.viewer:
            raise Forfeit(f"answered for seat {result.seat}, not seat {view.viewer}")
        return int(result.action.id)


_endpoints: dict[str, tuple] = {}
_endpoints_lock = threading.Lock()


def _endpoint(address: str) -> tuple:
    """(channel, stub): one channel per endpoint and process (worker processes build their
    own)."""
    with _endpoints_lock:
        endpoint = _endpoints.get(address)
        if endpoint is None:
            import grpc

            from council.v1 import service_pb2_grpc

            # Its own connection (not one shared with other channels to the address), so
            # that a channel made after `_forget` connects afresh.
            channel = grpc.insecure_channel(address, [("grpc.use_local_subchannel_pool", 1)])
            endpoint = (channel, service_pb2_grpc.CouncilServiceStub(channel))
            _endpoints[address] = endpoint
        return endpoint


def _forget(address: str, channel) -> None:
    """Drop an unreachable endpoint's channel (not closed: a call on it elsewhere goes on),
    so that the next game connects afresh instead of waiting out the channel's reconnection
    backoff once the endpoint is back."""
    with _endpoints_lock:
        if _endpoints.get(address, (None,))[0] is channel:
            del _endpoints[address]


def _connected(channel) -> bool:
    """Whether the channel, right after a call failed, has a live connection to the
    endpoint (READY): then the failure was the endpoint's answer or its lateness. Otherwise
    (connecting, failed to connect, connection lost) the endpoint could not be reached. The
    state is the one gRPC reports now; no new connection is tried."""
    import grpc

    states: queue.SimpleQueue = queue.SimpleQueue()

    def seen(state) -> None:
        states.put(state)

    channel.subscribe(seen, try_to_connect=False)
    try:
        return states.get(timeout=STATE_WAIT_S) is grpc.ChannelConnectivity.READY
    except queue.Empty:
        return False
    finally:
        channel.unsubscribe(seen)


def _remote(body: str, spec: str) -> RemoteAgent:
    host, sep, rest = body.partition(":")
    port, _, options = rest.partition(",")
    if not host or not sep or not port.isdigit():
        raise ValueError(f"{spec!r}: a remote entrant is remote:HOST:PORT[,option=value...]")
    kwargs: dict = {}
    for item in filter(None, options.split(",")):
        key, eq, value = item.partition("=")
        try:
            if not eq:
                raise ValueError
            if key == "preset":
                from council.server.presets import preset_value

                preset_value(value)
                kwargs[key] = value.lower()
            elif key == "iterations":
                kwargs[key] = int(value)
                if kwargs[key] < 1:
                    raise ValueError
            elif key in ("time_s", "deadline_s"):
                kwargs[key] = float(value)
                if not kwargs[key] > 0:
                    raise ValueError
            elif key == "token_file":
                with open(value) as f:
                    kwargs["token"] = f.read().strip() or None
            else:
                raise KeyError
        except KeyError:
            raise ValueError(
                f"{spec!r}: unknown option {key!r}; options are preset, iterations, time_s, "
                "deadline_s, token_file"
            ) from None
        except (OSError, ValueError) as error:
            detail = f": {error}" if str(error) else ""
            raise ValueError(f"{spec!r}: bad value in {item!r}{detail}") from None
    return RemoteAgent(address=f"{host}:{port}", **kwargs)


def parse_entrant(spec: str, game: str = DEFAULT_GAME) -> Entrant:
    """An entrant from ``[NAME@]agent-spec`` (an agent of ``game``) or
    ``[NAME@]remote:HOST:PORT[,options]`` (any game: the endpoint is sent the game's views)."""
    spec = spec.strip()
    label = None
    match = _LABEL.match(spec)
    if match:
        label, spec = match.group(1), match.group(2)
    if spec.startswith("remote:"):
        remote = _remote(spec[len("remote:") :], spec)
        return Entrant(label or f"remote({spec[len('remote:') :]})", spec, remote)
    agent = parse_agent(spec, game)
    return Entrant(label or agent_label(agent), spec, agent)
