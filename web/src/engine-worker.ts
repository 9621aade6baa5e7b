// The engine in a Web Worker: the page sends the compiled WebAssembly module (built from
// crates/tsubame-wasm) once, then one question at a time; each iteration of an analysis and
// the answer come back as JSON text. A question runs until its limits: the page stops one by
// ending the worker. The module leaves Wa's two networks out: a question that needs one is
// refused with that network's name, and the page sends the file it fetched (`{ network, bytes }`,
// answered `{ provided }`) and asks again.

type Message =
  | { module: WebAssembly.Module }
  | { question: string }
  | { network: string; bytes: ArrayBuffer };

interface Exports {
  memory: WebAssembly.Memory;
  tsubame_question(len: number): number;
  tsubame_ask(len: number): void;
  tsubame_network(len: number): number;
  tsubame_provide_network(nameLength: number, len: number): number;
}

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<Message>) => void) | null;
  postMessage(message: unknown): void;
};

let engine: Exports | null = null;
/** While a network is being given: the module's reason for refusing it, if it does. */
let provision: { refusal: string | null } | null = null;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

function text(pointer: number, length: number): string {
  return decoder.decode(new Uint8Array(engine!.memory.buffer, pointer, length).slice());
}

scope.onmessage = (event) => {
  const message = event.data;
  if ('module' in message) {
    try {
      const instance = new WebAssembly.Instance(message.module, {
        env: {
          tsubame_now_ms: () => performance.now(),
          tsubame_iteration: (pointer: number, length: number) =>
            scope.postMessage({ iteration: text(pointer, length) }),
          tsubame_answer: (ok: number, pointer: number, length: number) => {
            if (provision) provision.refusal = text(pointer, length);
            else scope.postMessage({ ok: ok === 1, answer: text(pointer, length) });
          },
        },
      });
      engine = instance.exports as unknown as Exports;
      scope.postMessage({ ready: true });
    } catch (e) {
      scope.postMessage({ failed: String(e) });
    }
    return;
  }
  if (!engine) {
    scope.postMessage({ ok: false, answer: JSON.stringify({ error: 'the engine did not start' }) });
    return;
  }
  if ('network' in message) {
    scope.postMessage(provide(engine, message.network, new Uint8Array(message.bytes)));
    return;
  }
  const bytes = encoder.encode(message.question);
  const at = engine.tsubame_question(bytes.length);
  if (at === 0) {
    scope.postMessage({ ok: false, answer: JSON.stringify({ error: 'the question is too long' }) });
    return;
  }
  new Uint8Array(engine.memory.buffer, at, bytes.length).set(bytes);
  try {
    engine.tsubame_ask(bytes.length);
  } catch (e) {
    // A trap (out of memory, a fault) ends this instance: the page starts a new worker.
    scope.postMessage({ ok: false, broken: true, answer: JSON.stringify({ error: `the engine stopped: ${e}` }) });
  }
};

/** Gives the module the network file `file` named `name`: `{ provided: true }`, or false with
 * the reason as a refusal's JSON. */
function provide(engine: Exports, name: string, file: Uint8Array): { provided: boolean; answer?: string } {
  const refused = (error: string) => ({ provided: false, answer: JSON.stringify({ error }) });
  const nameBytes = encoder.encode(name);
  const nameAt = engine.tsubame_question(nameBytes.length);
  if (nameAt === 0) return refused('the network\'s name is too long');
  new Uint8Array(engine.memory.buffer, nameAt, nameBytes.length).set(nameBytes);
  // Making room may grow the memory: the name, already written, stays where it is.
  const at = engine.tsubame_network(file.length);
  if (at === 0) return refused(`the ${name} network is too large (${file.length} bytes)`);
  new Uint8Array(engine.memory.buffer, at, file.length).set(file);
  provision = { refusal: null };
  try {
    const taken = engine.tsubame_provide_network(nameBytes.length, file.length) === 1;
    return taken ? { provided: true } : { provided: false, answer: provision.refusal ?? JSON.stringify({ error: 'the network was refused' }) };
  } catch (e) {
    return refused(`the engine stopped taking its network: ${e}`);
  } finally {
    provision = null;
  }
}
