import { randomUUID } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import { inject } from 'vitest';

export { composeNatsPassword, composeNatsPasswords, startComposeNats, startConfiguredNats, type ConfiguredNats } from './containers.ts';
export { keepContainers, testLogLevel, type TestLogLevel } from './debug.ts';
export { wireCommands, countStoreCommands, type StoreCommandCounter, type WireCommand } from './store-commands.ts';
export { tcpHop, type TcpHop } from './tcp-hop.ts';
export { interceptRequests } from './nats-requests.ts';
export { isMongoPlan, mongoPlanOfThisStore, sqlitePlan, stagesOf, type Explain, type Stage } from './plans.ts';

/** Secrets used only by tests; the services under test are configured with them. */
export const TEST_JWT_SECRET = 'test-jwt-secret-test-jwt-secret-0123456789';
export const TEST_INTERNAL_SECRET = 'test-internal-secret-test-internal-secret-01';

export interface Infra {
  mongoUrl: string;
  natsUrl: string;
}

/** Connection URLs of the containers started by the global setup. */
export function infra(): Infra {
  return { mongoUrl: inject('mongoUrl'), natsUrl: inject('natsUrl') };
}

/**
 * The store of this run, from its image: a test whose assertions differ by what the store
 * can do asserts that the branch it takes is this store's, so a store answering the other
 * way (or a branch never taken in a CI) cannot pass unseen.
 */
export function storeEngine(): 'mongodb' | 'ferretdb' {
  return inject('storeEngine');
}

/** A fresh token so each test file gets its own database and NATS subjects. */
export function uniqueSuffix(): string {
  return randomUUID().replaceAll('-', '').slice(0, 12);
}

export function databaseUrl(mongoUrl: string, name: string): string {
  return `${mongoUrl}/${name}_${uniqueSuffix()}`;
}

export function natsPrefix(): string {
  return `t${uniqueSuffix()}`;
}

export interface TokenOptions {
  sub?: string;
  app?: string;
  name?: string;
  picture?: string;
  roles?: string[];
  /** seconds from now; negative for an expired token */
  expiresIn?: number;
  secret?: string;
  iss?: string;
  aud?: string;
  omitExp?: boolean;
}

/** Mints an HS256 bearer token the way an identity provider would. */
export function mintToken(opts: TokenOptions = {}): string {
  const { secret = TEST_JWT_SECRET, expiresIn = 3600, omitExp = false, ...claims } = opts;
  const now = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = { sub: claims.sub ?? randomUUID(), app: claims.app ?? randomUUID(), iat: now };
  if (!omitExp) payload.exp = now + expiresIn;
  for (const key of ['name', 'picture', 'roles', 'iss', 'aud'] as const) if (claims[key] !== undefined) payload[key] = claims[key];
  return createSigner({ key: secret, algorithm: 'HS256' })(payload);
}

/** An unsigned token (`alg: none`), which every verifier must refuse. */
export function unsignedToken(payload: Record<string, unknown>): string {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.`;
}

export interface Gamer {
  id: string;
  app: string;
  name: string;
  token: string;
  auth: { authorization: string };
}

/** A gamer of an application with a valid token. */
export function gamer(app: string, name: string, extra: Omit<TokenOptions, 'sub' | 'app' | 'name'> = {}): Gamer {
  const id = randomUUID();
  const token = mintToken({ sub: id, app, name, ...extra });
  return { id, app, name, token, auth: { authorization: `Bearer ${token}` } };
}

/**
 * Polls until `check` returns a value or the deadline passes (for eventually-consistent
 * results). `undefined`, `null` and `false` mean "not yet": a check returning a driver's
 * `findOne` (null when absent) would otherwise pass at once, and could never fail.
 */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export interface CallOptions {
  headers?: Record<string, string>;
  body?: unknown;
  /** send this raw string as the body instead of JSON-encoding `body` */
  rawBody?: string;
}

/** A minimal HTTP client for black-box calls through the gateway. */
export function client(baseUrl: string) {
  return async function call<T = unknown>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    let body: string | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(new URL(path, baseUrl), { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  };
}
export type Call = ReturnType<typeof client>;

/** Listens on an ephemeral loopback port and answers the base URL. */
export async function listen(app: { listen(opts: { port: number; host: string }): Promise<string> }): Promise<string> {
  return app.listen({ port: 0, host: '127.0.0.1' });
}
export * from './process.ts';
export * from './otlp-receiver.ts';
