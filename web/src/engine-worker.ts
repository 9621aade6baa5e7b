// The engine in a Web Worker: the page sends the compiled WebAssembly module (built from
// crates/tsubame-wasm) once, then one question at a time; each iteration of an analysis and
// the answer come back as JSON text. A question runs until its limits: the page stops one by
// ending the worker.

type Message =
  | { module: WebAssembly.Module }
  | { question: string };

interface Exports {
  memory: WebAssembly.Memory;
  tsubame_question(len: number): number;
  tsubame_ask(len: number): void;
}

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<Message>) => void) | null;
  postMessage(message: unknown): void;
};

let engine: Exports | null = null;
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
          tsubame_answer: (ok: number, pointer: number, length: number) =>
            scope.postMessage({ ok: ok === 1, answer: text(pointer, length) }),
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
