import { readFile } from 'node:fs/promises';
import type { FastifyBaseLogger } from 'fastify';
import { keySetFromJwks, type KeySet, type VerificationKey } from './verification-keys.ts';

/** Far above any real key set (a few keys of a few hundred bytes); refuses a runaway body. */
const MAX_DOCUMENT_BYTES = 1024 * 1024;

export interface JwksRefreshOptions {
  /** where the key set is: a file path or an http(s) URL (exactly one) */
  file?: string;
  url?: string;
  refreshMs: number;
  timeoutMs: number;
  accepted: readonly string[];
  log: FastifyBaseLogger;
}

export interface RefreshingKeySet {
  /** the last good key set; reading it never waits for a load */
  current(): readonly VerificationKey[];
  stop(): void;
}

async function fetchDocument(url: string, signal: AbortSignal): Promise<string> {
  const response = await fetch(url, { signal, headers: { accept: 'application/jwk-set+json, application/json' } });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`HTTP ${response.status}`);
  }
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_DOCUMENT_BYTES) {
    await response.body?.cancel();
    throw new Error(`document of ${declared} bytes is over ${MAX_DOCUMENT_BYTES}`);
  }
  // read up to the bound whatever it declares: a chunked answer says no length
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.length;
    if (size > MAX_DOCUMENT_BYTES) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`document is over ${MAX_DOCUMENT_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  // as response.text() decodes: a byte order mark is dropped
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function readDocument(options: JwksRefreshOptions, signal: AbortSignal): Promise<string> {
  // The file is re-read each time: a Kubernetes ConfigMap or Secret volume is updated in place.
  if (options.file) return readFile(options.file, { encoding: 'utf8', signal });
  return fetchDocument(options.url!, signal);
}

async function loadKeySet(options: JwksRefreshOptions, stopped: AbortSignal): Promise<KeySet> {
  const signal = AbortSignal.any([stopped, AbortSignal.timeout(options.timeoutMs)]);
  const text = await readDocument(options, signal);
  if (Buffer.byteLength(text) > MAX_DOCUMENT_BYTES) throw new Error(`document is over ${MAX_DOCUMENT_BYTES} bytes`);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new Error('not JSON');
  }
  return keySetFromJwks(document, options.accepted);
}

function summary(set: KeySet): { kids: Array<string | null>; refused: string[] } {
  return { kids: set.keys.map((key) => key.kid ?? null), refused: set.refused };
}

/**
 * Loads the key set once (a failure is thrown: the gateway does not start without its
 * keys), then reloads it every `refreshMs` in the background. A failed reload (source
 * down, timeout, broken document, no usable key) keeps the last good set and logs, so
 * an identity provider outage does not turn into a gateway outage; the next reload
 * tries again. Requests only read the current set, never wait for a load.
 */
export async function startJwksRefresh(options: JwksRefreshOptions): Promise<RefreshingKeySet> {
  const source = options.file ? { JWT_JWKS_FILE: options.file } : { JWT_JWKS_URL: options.url };
  const stopper = new AbortController();
  let set = await loadKeySet(options, stopper.signal);
  let described = JSON.stringify(summary(set));
  options.log[set.refused.length > 0 ? 'warn' : 'info']({ ...source, ...summary(set) }, 'JWKS loaded');

  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    // The next load is timed from the end of this one, so loads never overlap.
    timer = setTimeout(() => void refresh(), options.refreshMs);
    timer.unref();
  };
  const refresh = async () => {
    try {
      const next = await loadKeySet(options, stopper.signal);
      set = next;
      const now = JSON.stringify(summary(next));
      if (now !== described) options.log[next.refused.length > 0 ? 'warn' : 'info']({ ...source, ...summary(next) }, 'JWKS changed');
      described = now;
    } catch (error) {
      if (stopper.signal.aborted) return;
      options.log.warn({ ...source, reason: (error as Error).message, kids: set.keys.map((key) => key.kid ?? null) }, 'JWKS refresh failed; keeping the last good key set');
    } finally {
      if (!stopper.signal.aborted) schedule();
    }
  };
  schedule();

  return {
    current: () => set.keys,
    stop: () => {
      stopper.abort();
      clearTimeout(timer);
    },
  };
}
