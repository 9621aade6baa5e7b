// The server's JSON API: one call, its errors as exceptions carrying the status.

/** Fetches `path` (GET), or POSTs `body` to it as JSON; the answer's JSON. A refusal throws
 * an `Error` with the server's sentence and the HTTP `status`. */
export async function api(path: string, body?: unknown, signal?: AbortSignal): Promise<any> {
  const response = await fetch(path, body === undefined ? { signal } : {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw Object.assign(new Error(data.error || `HTTP ${response.status}`), { status: response.status });
  return data;
}
