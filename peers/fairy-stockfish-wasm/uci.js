// Pipes UCI lines between stdin/stdout and the Fairy-Stockfish WebAssembly engine.
// Run with: node --no-experimental-fetch uci.js
// (Node's built-in fetch cannot read the engine's .wasm file from disk; without it the module
// falls back to reading the file directly.)
"use strict";

const readline = require("readline");

async function main() {
  const createEngine = require("fairy-stockfish-nnue.wasm/stockfish.js");
  const engine = await createEngine();
  engine.addMessageListener((line) => process.stdout.write(line + "\n"));
  const input = readline.createInterface({ input: process.stdin });
  for await (const line of input) {
    if (line.trim() === "quit") {
      break;
    }
    engine.postMessage(line);
  }
  engine.postMessage("quit");
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`fairy-stockfish wrapper: ${error}\n`);
  process.exit(1);
});
