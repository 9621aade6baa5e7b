// The server's JSON API: one call, its errors as exceptions carrying the status, in the
// visitor's language where the server names the refusal by a code the catalogue knows.

import { hasText, t } from './i18n';

/** What the server says of a refusal (an HTTP error's body, a socket's error message). */
export type Refusal = { error?: string | null; code?: string | null; params?: Record<string, string> | null };

/** A refusal in the visitor's language: the catalogue's text for its code, else the server's
 * own sentence. */
export function refusalText(refusal: Refusal, status?: number): string {
  if (refusal.code && hasText(`errors.${refusal.code}`)) return t(`errors.${refusal.code}`, refusal.params || {});
  return refusal.error || `HTTP ${status ?? ''}`.trim();
}

/** What `api` throws for a refusal: the server's sentence (in the visitor's language where the
 * catalogue words its code), the HTTP status and the refusal's code. */
export class ApiRefusal extends Error {
  constructor(message: string, readonly status: number, readonly code?: string | null) {
    super(message);
  }
}

/** The sentence of whatever a call threw: a refusal's, a failed connection's. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The HTTP status of a refusal that was thrown; none for anything else. */
export function errorStatus(e: unknown): number | undefined {
  const status = typeof e === 'object' && e !== null ? (e as { status?: unknown }).status : undefined;
  return typeof status === 'number' ? status : undefined;
}

/** Whether what was thrown is a call called off (an `AbortSignal`'s abort). */
export function isAborted(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'AbortError';
}

/** A short wait the server asks for (429 with a `Retry-After` of this many seconds or less)
 * is waited out and the request sent again, a few times: the engine's queue or the address's
 * share of it was full for a moment. A longer wait is the caller's to tell the player. */
const SHORT_WAIT_SECONDS = 2;
const SHORT_WAIT_TRIES = 4;

/** Fetches `path` (GET), or POSTs `body` to it as JSON; the answer's JSON, read as `Answer`:
 * one of the API's answer types (types.ts, generated from its OpenAPI document), which the
 * caller names, or `unknown`. A refusal throws an `Error` with the server's sentence and the
 * HTTP `status`. */
export async function api<Answer = unknown>(path: string, body?: unknown, signal?: AbortSignal): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(path, body === undefined ? { signal } : {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
    const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
    if (response.ok) return data;
    const wait = Number(response.headers.get('retry-after'));
    if (response.status === 429 && attempt < SHORT_WAIT_TRIES && wait > 0 && wait <= SHORT_WAIT_SECONDS) {
      await pause(wait * 1000, signal);
      continue;
    }
    throw new ApiRefusal(refusalText(data, response.status), response.status, data.code);
  }
}

/** Waits `ms`, or rejects as `fetch` does as soon as `signal` is aborted. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((done, fail) => {
    const aborted = () => fail(new DOMException('The request was called off', 'AbortError'));
    if (signal?.aborted) return aborted();
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); done(); }, ms);
    const onAbort = () => { clearTimeout(timer); aborted(); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
