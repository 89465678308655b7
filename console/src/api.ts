// The public API as the console calls it: the key from sessionStorage in the x-api-key header (never in a URL,
// a cookie or a log), problems (RFC 9457) turned into ApiError with their title and detail.
const KEY_SLOT = 'ce.api_key';

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly body: unknown) {
    super(message);
  }
}

export const session = {
  key(): string | null { return sessionStorage.getItem(KEY_SLOT); },
  set(key: string): void { sessionStorage.setItem(KEY_SLOT, key); },
  clear(): void { sessionStorage.removeItem(KEY_SLOT); },
};

export interface Identity { key_id: string; scopes: string[]; actor: string | null }

export async function call<T>(method: string, path: string, body?: unknown, key = session.key()): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' });
  const text = await response.text();
  let parsed: unknown = null;
  try { parsed = text === '' ? null : JSON.parse(text); } catch { parsed = text; }
  if (!response.ok) {
    const problem = (parsed ?? {}) as { title?: string; detail?: string; code?: string; type?: string };
    const code = problem.code ?? (problem.type ?? '').split('/').pop() ?? String(response.status);
    throw new ApiError(response.status, code, problem.detail ?? problem.title ?? `HTTP ${response.status}`, parsed);
  }
  return parsed as T;
}

/** The signed-in key's id, scopes and bound actor (GET /v1/me); a wrong key is a 401. */
export const whoAmI = (key?: string): Promise<Identity> => call<Identity>('GET', '/v1/me', undefined, key ?? session.key());

export async function download(path: string): Promise<Blob> {
  const key = session.key();
  const response = await fetch(path, { headers: key ? { 'x-api-key': key } : {}, credentials: 'omit', cache: 'no-store' });
  if (!response.ok) throw new ApiError(response.status, String(response.status), `HTTP ${response.status}`, null);
  return response.blob();
}

export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
