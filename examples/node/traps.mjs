#!/usr/bin/env node
// The three ways a JavaScript client quietly gets the service wrong, shown against a running
// server (docs/service.md, "Front-ends"):
//
//   node traps.mjs [--address 127.0.0.1:50051] [--url http://127.0.0.1:8080]
//
// 1. @grpc/proto-loader with `defaults: false` (its default): zero values are absent, so
//    seat 0 and action 0 ("end") come back as undefined, and sending that action back is
//    no action at all (INVALID_ARGUMENT).
// 2. `longs: Number`: the state's uint64 `rng` is rounded past 2^53; sent back, the server
//    plays on with other chance, without any error: the same moves deal other cards.
// 3. Durations: grpc-js wants {seconds, nanos} objects (a "0.5s" string fails to
//    serialize); protobuf JSON (Connect) wants the "0.5s" string.
// Prints what it finds, then one JSON line (tests/server/test_node_example.py reads it).

import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

const PROTO_ROOT = fileURLToPath(new URL("../../proto", import.meta.url));
const { values: options } = parseArgs({
  options: {
    address: { type: "string", default: "127.0.0.1:50051" },
    url: { type: "string", default: "http://127.0.0.1:8080" },
  },
});

function client(loaderOptions) {
  const definition = protoLoader.loadSync(path.join("council", "v1", "service.proto"), {
    includeDirs: [PROTO_ROOT],
    ...loaderOptions,
  });
  const { council } = grpc.loadPackageDefinition(definition);
  const stub = new council.v1.CouncilService(options.address, grpc.credentials.createInsecure());
  return (method, request) =>
    new Promise((resolve, reject) =>
      stub[method](request, (error, response) => (error ? reject(error) : resolve(response))),
    );
}
const failure = (error) => `${grpc.status[error.code]}: ${error.details}`;
const shown = (value) => (value === null ? "undefined" : value); // JSON has no undefined

const right = client({ longs: String, enums: String, defaults: true, oneofs: true });
const noDefaults = client({ longs: String, enums: String, oneofs: true });
const longsAsNumbers = client({ longs: Number, enums: String, defaults: true, oneofs: true });
const found = {};

// 1. defaults: false
{
  let { state } = await noDefaults("NewGame", { config: { players: 2 }, seed: "3" });
  found.seatWithoutDefaults = state.turn.current ?? null;
  for (let i = 0; i < 20; i++) {
    const { actions } = await noDefaults("ListLegalActions", { state });
    const end = actions.find((a) => a.text === "end");
    if (end !== undefined) {
      found.endActionIdWithoutDefaults = end.id ?? null;
      found.applyingItFails = await noDefaults("ApplyAction", { state, actionId: end.id }).then(
        () => null,
        failure,
      );
      break;
    }
    ({ state } = await noDefaults("ApplyAction", { state, actionId: actions[0].id }));
  }
  const { state: withDefaults } = await right("NewGame", { config: { players: 2 }, seed: "3" });
  found.seatWithDefaults = withDefaults.turn.current;
}
console.log(
  `1. defaults:false: the seat to move reads ${shown(found.seatWithoutDefaults)} (defaults:true: ` +
    `${found.seatWithDefaults}); the "end" action's id reads ` +
    `${shown(found.endActionIdWithoutDefaults)}, ` +
    `and applying it fails: ${found.applyingItFails}`,
);

// 2. longs: Number
{
  let { state: exact } = await right("NewGame", { config: { players: 3 }, seed: "7" });
  let { state: rounded } = await longsAsNumbers("NewGame", { config: { players: 3 }, seed: "7" });
  found.rng = exact.rng;
  found.rngAsNumber = String(rounded.rng);
  for (let move = 1; move <= 50; move++) {
    const { result } = await right("RecommendAction", {
      state: exact,
      limits: { iterations: 20 },
      maxCandidates: 1,
    });
    ({ state: exact } = await right("ApplyAction", { state: exact, actionId: result.action.id }));
    ({ state: rounded } = await longsAsNumbers("ApplyAction", {
      state: rounded,
      actionId: result.action.id,
    }));
    const hands = (s) => JSON.stringify(s.players.map((p) => p.hand));
    if (hands(exact) !== hands(rounded)) {
      found.handsDifferAfterMoves = move;
      break;
    }
  }
}
console.log(
  `2. longs:Number: rng ${found.rng} arrives as ${found.rngAsNumber}; with no error, the ` +
    `same moves deal other cards after ${found.handsDifferAfterMoves} move(s)`,
);

// 3. Durations
{
  const info = await right("GetEngineInfo", {});
  found.durationInGrpcJs = info.maxSearchTime;
  const { state } = await right("NewGame", { config: { players: 2 }, seed: "1" });
  found.stringDurationInGrpcJs = await right("RecommendAction", {
    state,
    limits: { maxTime: "0.5s" },
  }).then(() => null, failure);
  const http = await fetch(`${options.url}/council.v1.CouncilService/GetEngineInfo`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: "{}",
  });
  found.durationInJson = (await http.json()).maxSearchTime;
}
console.log(
  `3. durations: grpc-js ${JSON.stringify(found.durationInGrpcJs)}, JSON ` +
    `${JSON.stringify(found.durationInJson)}; a string in grpc-js fails: ${found.stringDurationInGrpcJs}`,
);
console.log(JSON.stringify(found));
