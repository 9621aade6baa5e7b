#!/usr/bin/env node
// Speed of the browser's engine against the native one, in the same run: the WebAssembly module
// (run here by Node's V8, Chromium's engine) and `tsubame analyse --json` answer the same
// fixed-depth questions, in alternation, a few rounds; both must search the same tree (node
// for node) and the medians of their nodes a second are compared.
//
//   node scripts/bench-web-engine.mjs [--rounds N] [WASM] [TSUBAME]
//
// WASM defaults to the module scripts/build-web-engine builds, TSUBAME to target/ci/tsubame.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
let rounds = 3;
if (args[0] === '--rounds') { rounds = Number(args[1]); args.splice(0, 2); }
const wasmPath = args[0] || join(root, 'target/web-engine/wasm32-unknown-unknown/wasm/tsubame_wasm.wasm');
const bin = args[1] || join(root, 'target/ci/tsubame');

const QUESTIONS = [
  { type: 'analyse', variant: 'tori', depth: 15 },
  { type: 'analyse', variant: 'tori', moves: ['3d3c', '4b3c', '5e5d'], depth: 14 },
  { type: 'analyse', variant: 'wa', depth: 10 },
  { type: 'analyse', variant: 'wa', options: 'drops=off', depth: 10 },
  { type: 'analyse', variant: 'tenjiku', moves: ['4p5o'], depth: 4 },
];

const bytes = readFileSync(wasmPath);
const module = new WebAssembly.Module(bytes);
const decoder = new TextDecoder();
let instance;
let answer;
const text = (pointer, length) => decoder.decode(new Uint8Array(instance.exports.memory.buffer).slice(pointer, pointer + length));
instance = new WebAssembly.Instance(module, { env: {
  tsubame_now_ms: () => performance.now(),
  tsubame_iteration: () => {},
  tsubame_answer: (ok, pointer, length) => { answer = { ok, ...JSON.parse(text(pointer, length)) }; },
} });

/** Copies `bytes` into the room that `allocate` (one of the module's exports) makes for them,
 * and gives their length. The room is made first: growing the memory replaces its buffer. */
function place(allocate, bytes) {
  const at = allocate(bytes.length);
  new Uint8Array(instance.exports.memory.buffer).set(bytes, at);
  return bytes.length;
}

function inWasm(question) {
  instance.exports.tsubame_ask(place(instance.exports.tsubame_question, new TextEncoder().encode(JSON.stringify(question))));
  // A network the module leaves out (Wa's): given the file the native engine carries, as the
  // page gives the one it fetches, and the question asked again.
  if (!answer.ok && answer.network) {
    provideNetwork(answer.network);
    return inWasm(question);
  }
  if (!answer.ok) throw new Error(answer.error);
  return answer;
}

function provideNetwork(name) {
  const file = readFileSync(join(root, 'crates/tsubame-engine/nets', `${name}.nnue`));
  const nameLength = place(instance.exports.tsubame_question, new TextEncoder().encode(name));
  const fileLength = place(instance.exports.tsubame_network, file);
  if (instance.exports.tsubame_provide_network(nameLength, fileLength) !== 1) {
    throw new Error(`the module refused the ${name} network: ${answer.error}`);
  }
}

function native(question) {
  const lines = execFileSync(bin, ['analyse', '--json', JSON.stringify(question)], { encoding: 'utf8' }).trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`module: ${bytes.length} bytes, ${gzipSync(bytes, { level: 9 }).length} gzipped; ${rounds} rounds`);
for (const question of QUESTIONS) {
  const speeds = { wasm: [], native: [] };
  let nodes = null;
  for (let round = 0; round < rounds; round++) {
    for (const [name, ask] of round % 2 ? [['native', native], ['wasm', inWasm]] : [['wasm', inWasm], ['native', native]]) {
      const reply = ask(question);
      if (nodes !== null && reply.nodes !== nodes) throw new Error(`${name} searched ${reply.nodes} nodes, not ${nodes}`);
      nodes = reply.nodes;
      speeds[name].push(reply.nodes / Math.max(1, reply.time_ms));
    }
  }
  const [wasm, nat] = [median(speeds.wasm), median(speeds.native)];
  const name = `${question.variant}${question.options ? ` ${question.options}` : ''} ${question.moves ? `after ${question.moves.length} moves` : 'start'} depth ${question.depth}`;
  console.log(`${name}: ${nodes} nodes; WebAssembly ${wasm.toFixed(0)} kN/s, native ${nat.toFixed(0)} kN/s: ${(wasm / nat).toFixed(2)} of native`);
}
