#!/usr/bin/env node
// Bots play one whole game of Council of Four through the council-ai service, the way a
// front-end's game server would: NewGame, then for each move RecommendAction for the seat
// to move and ApplyAction of its choice, until the game is over; then the scores.
//
//   npm ci
//   node play.mjs                                    # gRPC on 127.0.0.1:50051
//   node play.mjs --transport connect                # HTTP + JSON on http://127.0.0.1:8080
//   node play.mjs --players 4 --iterations 300 --seed 12345
//
// Two transports, one game loop:
//   grpc     @grpc/grpc-js with @grpc/proto-loader, reading this repository's .proto files.
//            The loader options below are the ones that keep every value intact.
//   connect  the Connect protocol with JSON over fetch(): what a browser page does, with no
//            library at all (POST /council.v1.CouncilService/<Method>, a JSON body).
// Both speak the protobuf JSON names (camelCase: turn.current, actionId, gameOver), so the
// loop reads the same objects either way (docs/service.md, "Front-ends").

import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

const PROTO_ROOT = fileURLToPath(new URL("../../proto", import.meta.url));
const SERVICE = "council.v1.CouncilService";
const DEADLINE_MS = 30_000;

const { values: options } = parseArgs({
  options: {
    transport: { type: "string", default: "grpc" },
    address: { type: "string", default: "127.0.0.1:50051" },
    url: { type: "string", default: "http://127.0.0.1:8080" },
    players: { type: "string", default: "3" },
    iterations: { type: "string", default: "300" },
    seed: { type: "string" },
    quiet: { type: "boolean", default: false },
  },
});

// -- gRPC: @grpc/grpc-js + @grpc/proto-loader ------------------------------------------
function grpcTransport(address) {
  const definition = protoLoader.loadSync(path.join("council", "v1", "service.proto"), {
    includeDirs: [PROTO_ROOT],
    // uint64 (the state's rng, seeds) as decimal strings. `longs: Number` rounds them past
    // 2^53 and the server silently plays on with other cards; the default is Long objects.
    longs: String,
    enums: String, // enum values by name, e.g. "ACTION_KIND_ACQUIRE"
    // Zero values present. With `defaults: false` seat 0 and action 0 ("end") arrive as
    // undefined: `actionId: undefined` is no action at all (INVALID_ARGUMENT).
    defaults: true,
    oneofs: true, // which member of a oneof (and of an `optional` field) is set
  });
  const { council } = grpc.loadPackageDefinition(definition);
  const client = new council.v1.CouncilService(address, grpc.credentials.createInsecure());
  const call = (method, request) =>
    new Promise((resolve, reject) => {
      const deadline = new Date(Date.now() + DEADLINE_MS);
      client[method](request, { deadline }, (error, response) =>
        error ? reject(new Error(`${method}: ${grpc.status[error.code]}: ${error.details}`)) : resolve(response),
      );
    });
  return { call, close: () => client.close(), where: address };
}

// -- Connect: JSON over HTTP, as from a browser -------------------------------------------
function connectTransport(baseUrl) {
  const call = async (method, request) => {
    const response = await fetch(`${baseUrl}/${SERVICE}/${method}`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "Connect-Protocol-Version": "1",
        "Connect-Timeout-Ms": String(DEADLINE_MS),
      },
      body: JSON.stringify(request),
    });
    const body = await response.json();
    if (!response.ok) {
      // A Connect error: {code, message, details}; a google.rpc.BadRequest detail lists
      // every offending field (its `debug` member is the same as JSON).
      const violations = (body.details ?? [])
        .flatMap((d) => d.debug?.fieldViolations ?? [])
        .map((v) => `\n  ${v.field}: ${v.description}`);
      throw new Error(`${method}: ${body.code}: ${body.message}${violations.join("")}`);
    }
    return body;
  };
  return { call, close: () => {}, where: baseUrl };
}

// -- the game ------------------------------------------------------------------------------
async function play(service, { players, iterations, seed, quiet }) {
  // No seed: the server draws a secret random one (a real game must never use a guessable
  // seed, nor show it to a player). uint64 values travel as strings.
  const newGame = { config: { players } };
  if (seed !== undefined) newGame.seed = String(seed);
  let { state } = await service.call("NewGame", newGame);
  for (let actions = 1; ; actions++) {
    // JSON leaves out zeros: seat 0 and action 0 are absent there, hence `?? 0`.
    const seat = state.turn?.current ?? 0;
    const { result } = await service.call("RecommendAction", {
      state, // the full state: the server searches only this seat's view of it
      seat,
      limits: { iterations },
      seed: String(actions),
      maxCandidates: 1,
    });
    const actionId = result.action.id ?? 0;
    const applied = await service.call("ApplyAction", { state, actionId });
    if (!quiet && (applied.gameOver || actions % 100 === 0)) {
      console.log(`action ${actions}: turn ${applied.state.turn.number}, seat ${seat}: ${result.action.text}`);
    }
    state = applied.state;
    if (applied.gameOver) {
      return { actions, turns: state.turn.number, scores: applied.scores, winners: applied.winners };
    }
  }
}

const service =
  options.transport === "grpc"
    ? grpcTransport(options.address)
    : options.transport === "connect"
      ? connectTransport(options.url.replace(/\/+$/, ""))
      : null;
if (service === null) {
  console.error(`play.mjs: --transport must be grpc or connect, got ${options.transport}`);
  process.exit(2);
}
const started = Date.now();
try {
  const game = await play(service, {
    players: Number(options.players),
    iterations: Number(options.iterations),
    seed: options.seed,
    quiet: options.quiet,
  });
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `game over after ${game.actions} actions (${game.turns} turns, ${seconds.toFixed(1)} s) ` +
      `over ${options.transport} (${service.where}): scores ${game.scores.join(", ")}, ` +
      `winners: seat ${game.winners.join(", seat ")}`,
  );
  // One JSON line last, for scripts (tests/server/test_node_example.py reads it).
  console.log(JSON.stringify({ transport: options.transport, seconds, ...game }));
} catch (error) {
  console.error(`play.mjs: ${error.message}`);
  process.exitCode = 1;
} finally {
  service.close();
}
