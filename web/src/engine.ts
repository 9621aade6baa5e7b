// The engine the pages ask: our engine compiled to WebAssembly, in Web Workers of the player's
// own browser, or the server's (`POST /api/analyse`, `POST /api/mate`) where the browser cannot
// run it or the player chose the server. Both answer the same questions with the same JSON.

import { api, isAborted, refusalText } from './api';
import type { EngineReply as ServerEngineReply, MateReply as ServerMateReply } from './api-types';

declare const ENGINE_WORKER_URL: string;
declare const ENGINE_WASM_URL: string;
/** The networks the module leaves out, by name: fetched only when a question needs one. */
declare const ENGINE_NETWORK_URLS: Record<string, string>;

/** The engine's answer for a position (the server's `EngineReply`; the browser's engine
 * answers the same JSON). */
export type EngineReply = ServerEngineReply;

/** The mate solver's answer (the server's `MateReply`): its result one of three words. */
export interface MateReply extends ServerMateReply {
  result: 'mate' | 'none' | 'unknown';
}

/** A position as the questions name one. */
export interface PositionQuestion {
  variant: string;
  options?: string;
  sfen?: string | null;
  moves?: string[];
}

const CHOICE_KEY = 'tsubame.engine';
/** Idle workers kept ready: the analysis board's search and its mate search run side by side. */
const KEPT_WORKERS = 2;

/** Where the engine runs: `browser` (the default where it can) or `server`. */
export type EnginePlace = 'browser' | 'server';

/** Whether this browser can run the engine: WebAssembly with SIMD, and Web Workers. */
export function browserCanRun(): boolean {
  try {
    if (typeof Worker !== 'function' || typeof WebAssembly !== 'object') return false;
    // The smallest module that uses a SIMD instruction (v128.const, drop).
    return WebAssembly.validate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0,
      10, 23, 1, 21, 0, 253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 26, 11]));
  } catch {
    return false;
  }
}

/** Where the player wants the engine, where the browser can run it. */
export function enginePlace(): EnginePlace {
  if (!browserCanRun() || broken) return 'server';
  try {
    return localStorage.getItem(CHOICE_KEY) === 'server' ? 'server' : 'browser';
  } catch {
    return 'browser';
  }
}

/** Keeps the player's choice for every page. */
export function chooseEnginePlace(place: EnginePlace) {
  try {
    localStorage.setItem(CHOICE_KEY, place);
  } catch { /* a browser without storage keeps the default */ }
}

/** Set when the module could not be loaded or started here: the server answers from then on. */
let broken = false;
let compiled: Promise<WebAssembly.Module> | null = null;
const idle: Worker[] = [];

function engineModule(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const response = await fetch(ENGINE_WASM_URL);
    if (!response.ok) throw new Error(`the engine could not be loaded (HTTP ${response.status})`);
    return WebAssembly.compile(await response.arrayBuffer());
  })();
  return compiled;
}

const networkFiles = new Map<string, Promise<ArrayBuffer>>();

/** The file of a network the module leaves out, fetched once for the page (and again after a
 * failed fetch). */
function networkFile(name: string): Promise<ArrayBuffer> {
  let file = networkFiles.get(name);
  if (!file) {
    file = (async () => {
      const url = Object.hasOwn(ENGINE_NETWORK_URLS, name) ? ENGINE_NETWORK_URLS[name] : null;
      if (!url) throw new Error(`the engine asked for a network this site does not have (${name})`);
      const response = await fetch(url);
      if (!response.ok) throw new Error(`the engine's ${name} network could not be loaded (HTTP ${response.status})`);
      return response.arrayBuffer();
    })();
    file.catch(() => networkFiles.delete(name));
    networkFiles.set(name, file);
  }
  return file;
}

/** Keeps an idle worker for the next question, up to `KEPT_WORKERS`, or ends it. */
function keepOrEnd(worker: Worker) {
  if (idle.length < KEPT_WORKERS) idle.push(worker);
  else worker.terminate();
}

/** Whether an error is a network file the page could not fetch: the server, which has every
 * network, can answer instead. */
export function networkMissing(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { networkMissing?: boolean }).networkMissing === true;
}

/** A worker with the engine started in it. */
async function startedWorker(): Promise<Worker> {
  const kept = idle.pop();
  if (kept) return kept;
  const module = await engineModule();
  const worker = new Worker(ENGINE_WORKER_URL);
  await new Promise<void>((ready, fail) => {
    worker.onmessage = (event) => {
      if (event.data.ready) ready();
      else fail(new Error(`the engine did not start: ${event.data.failed}`));
    };
    worker.onerror = (event) => fail(new Error(`the engine did not start: ${event.message}`));
    worker.postMessage({ module });
  });
  return worker;
}

function calledOff(): DOMException {
  return new DOMException('The search was called off', 'AbortError');
}

/** Asks a worker one question; each iteration goes to `onIteration`. Aborting `signal` ends
 * the worker at once (a search cannot be interrupted otherwise) and rejects with AbortError. */
async function askWorker<T>(question: object, signal?: AbortSignal, onIteration?: (so_far: T) => void): Promise<T> {
  if (signal?.aborted) throw calledOff();
  let worker: Worker;
  try {
    worker = await startedWorker();
  } catch (e) {
    broken = true;
    compiled = null;
    throw e;
  }
  if (signal?.aborted) {
    keepOrEnd(worker);
    throw calledOff();
  }
  return new Promise<T>((done, fail) => {
    // Set once the question is answered, refused or called off: the worker is then kept or
    // ended, and nothing more may touch it for this question.
    let settled = false;
    const onAbort = () => {
      settled = true;
      worker.terminate();
      fail(calledOff());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const finish = () => {
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      worker.onmessage = null;
      worker.onerror = null;
    };
    const text = JSON.stringify(question);
    let networkGiven = false;
    const giveNetwork = async (name: string) => {
      try {
        const bytes = await networkFile(name);
        if (!settled) worker.postMessage({ network: name, bytes });
      } catch (e) {
        if (settled) return;
        finish();
        keepOrEnd(worker);
        // The server, which has every network, may answer instead.
        fail(Object.assign(e instanceof Error ? e : new Error(String(e)), { networkMissing: true }));
      }
    };
    worker.onmessage = (event) => {
      const message = event.data;
      if (message.iteration !== undefined) {
        onIteration?.(JSON.parse(message.iteration));
        return;
      }
      if (message.provided !== undefined) {
        if (message.provided) {
          worker.postMessage({ question: text });
          return;
        }
        finish();
        worker.terminate();
        fail(new Error(`the engine could not take its network: ${refusalText(JSON.parse(message.answer))}`));
        return;
      }
      // A network the module leaves out: fetched (once for the page), given to this worker,
      // which keeps it, and the question asked again.
      if (!message.ok && !networkGiven) {
        const refusal = JSON.parse(message.answer);
        if (typeof refusal.network === 'string') {
          networkGiven = true;
          void giveNetwork(refusal.network);
          return;
        }
      }
      finish();
      if (message.broken) worker.terminate();
      else keepOrEnd(worker);
      const answer = JSON.parse(message.answer);
      if (message.ok) done(answer);
      else fail(Object.assign(new Error(refusalText(answer)), { code: answer.code, status: answer.status }));
    };
    worker.onerror = (event) => {
      finish();
      worker.terminate();
      fail(new Error(`the engine stopped: ${event.message}`));
    };
    worker.postMessage({ question: text });
  });
}

/** The best move and lines of a position: in this browser, each iteration told to
 * `onIteration` as it completes, or by the server (whose answer is its last iteration).
 * `infinite` searches on until `signal` calls it off (in the browser; the server stops at the
 * depth or time given). */
export async function analyse(question: PositionQuestion & { depth?: number; movetime_ms?: number; lines?: number; infinite?: boolean },
  options: { signal?: AbortSignal; onIteration?: (so_far: EngineReply) => void; place?: EnginePlace } = {}): Promise<EngineReply> {
  if ((options.place ?? enginePlace()) === 'browser') {
    try {
      return await askWorker<EngineReply>({ type: 'analyse', ...question }, options.signal, options.onIteration);
    } catch (e) {
      // An engine that could not start here, or a network it could not fetch: the server
      // answers instead, but not an endless search, which it does not take (the caller asks
      // it depth by depth).
      if (!(broken || networkMissing(e)) || isAborted(e) || question.infinite) throw e;
    }
  }
  const { infinite: _, ...asked } = question;
  const reply = await api<EngineReply>('/api/analyse', asked, options.signal);
  options.onIteration?.(reply);
  return reply;
}

/** The shortest mate by checks of up to `max_moves` moves, in this browser or by the server. */
export async function findMate(question: PositionQuestion & { max_moves?: number; movetime_ms?: number },
  options: { signal?: AbortSignal; place?: EnginePlace } = {}): Promise<MateReply> {
  if ((options.place ?? enginePlace()) === 'browser') {
    try {
      return await askWorker<MateReply>({ type: 'mate', ...question }, options.signal);
    } catch (e) {
      if (!broken || isAborted(e)) throw e;
    }
  }
  return api<MateReply>('/api/mate', question, options.signal);
}
