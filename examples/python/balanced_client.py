"""A gRPC client of several council-ai replicas (docs/deploy.md): bot moves of one game,
each call retried on UNAVAILABLE by the service config of deploy/grpc_service_config.json.

Through a proxy (nginx, `make deploy-local`): one address, the proxy's::

    python examples/python/balanced_client.py 127.0.0.1:50051

Without a proxy: the replicas' addresses (or a DNS name listing them, such as a
Kubernetes headless Service: dns:///council-ai-replicas:50051); the channel balances the
calls round-robin over those whose health is SERVING (a draining one gets none)::

    python examples/python/balanced_client.py --replicas 127.0.0.1:50061,127.0.0.1:50062
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import grpc

# The service config, as any gRPC client in any language would load it (the Python helper
# council.server.client.channel_options() does the same from the installed package).
SERVICE_CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "grpc_service_config.json"


def channel(target: str, *, direct: bool) -> grpc.Channel:
    """A channel to `target` with the retry policy and round-robin balancing; with `direct`
    (the addresses are the replicas themselves) also health checking: through a proxy the
    health would be one replica's, for all of them."""
    config = json.loads(SERVICE_CONFIG.read_text())
    if direct:
        config["healthCheckConfig"] = {"serviceName": "council.v1.CouncilService"}
    return grpc.insecure_channel(target, [("grpc.service_config", json.dumps(config))])


def main(argv: list[str] | None = None) -> int:
    from council.v1 import game_pb2 as pb
    from council.v1 import service_pb2 as spb
    from council.v1 import service_pb2_grpc

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("address", nargs="?", help="a proxy's host:port (or any gRPC target)")
    parser.add_argument("--replicas", help="comma-separated host:port of each replica")
    parser.add_argument("--moves", type=int, default=4, help="bot moves to ask for")
    args = parser.parse_args(argv)
    if bool(args.address) == bool(args.replicas):
        parser.error("give a proxy's address or --replicas, one of them")
    target = f"ipv4:{args.replicas}" if args.replicas else args.address
    with channel(target, direct=bool(args.replicas)) as ch:
        stub = service_pb2_grpc.CouncilServiceStub(ch)
        game = stub.NewGame(spb.NewGameRequest(seed=7), timeout=10)
        state = game.state
        beginner = pb.SearchLimits(preset=pb.STRENGTH_PRESET_BEGINNER)
        for _ in range(args.moves):
            move = stub.RecommendAction(
                spb.RecommendActionRequest(state=state, limits=beginner), timeout=30
            )
            applied = stub.ApplyAction(
                spb.ApplyActionRequest(state=state, action_id=move.result.action.id), timeout=10
            )
            print(move.result.action.text)
            state = applied.state
            if applied.game_over:
                break
    return 0


if __name__ == "__main__":
    sys.exit(main())
