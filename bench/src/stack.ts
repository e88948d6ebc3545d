import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createSigner } from 'fast-jwt';
import { createIdentitySigner } from '../../libs/platform/src/identity.ts';
import type { Identity, Role } from '@gfts/contracts';

/** What scripts/stack.sh writes to .stack/state.json. */
export interface StackState {
  engine: string;
  mongoImage: string;
  natsImage: string;
  natsUrl: string;
  services: {
    friendship: { pid: number; url: string; mongoUrl: string };
    tasks: { pid: number; url: string; mongoUrl: string };
    /** absent from the state files of stacks before the notifications service */
    notifications?: { pid: number; url: string; mongoUrl: string };
    gateway: { pid: number; url: string };
  };
  /** notificationsDb: absent from the state files of stacks before the notifications service */
  containers: { friendshipDb: string; tasksDb: string; nats: string; notificationsDb?: string };
}

export const DEV_JWT_SECRET = 'dev-only-secret-change-me-0123456789abcdef';
export const DEV_INTERNAL_SECRET = 'dev-only-internal-secret-0123456789abcdef';

export function readStackState(file: string): StackState {
  return JSON.parse(readFileSync(file, 'utf8')) as StackState;
}

/** The host pid of a container's main process (rootful Podman/Docker), for /proc sampling. */
export function containerPid(engine: string, name: string): number | undefined {
  try {
    const pid = Number(execFileSync(engine, ['inspect', '--format', '{{.State.Pid}}', name], { encoding: 'utf8', timeout: 10_000 }).trim());
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export interface Gamer {
  id: string;
  name: string;
  avatar: string;
}

/** Bearer tokens (what a game client sends) and identity assertions (what the gateway forwards). */
export class Credentials {
  private readonly bearer: (payload: Record<string, unknown>) => string;
  private readonly identity: (identity: Identity) => string;
  private readonly bearerCache = new Map<string, string>();

  constructor(jwtSecret: string, internalSecret: string) {
    this.bearer = createSigner({ key: jwtSecret, algorithm: 'HS256', expiresIn: 6 * 3600_000 });
    this.identity = createIdentitySigner(internalSecret);
  }

  /** `Authorization` header value for a gamer of an application. */
  bearerFor(app: string, gamer: Gamer, roles: Role[] = []): string {
    const key = `${app}:${gamer.id}:${roles.join(',')}`;
    let token = this.bearerCache.get(key);
    if (!token) {
      token = `Bearer ${this.bearer({ sub: gamer.id, app, name: gamer.name, picture: gamer.avatar, ...(roles.length ? { roles } : {}) })}`;
      this.bearerCache.set(key, token);
    }
    return token;
  }

  /**
   * `x-gfts-identity` for calling a service directly, bypassing the gateway. The assertion
   * lives 60 s, so callers re-sign at least every ~30 s (identityHeaders does).
   */
  identityFor(app: string, gamer: Gamer, roles: Role[] = []): string {
    return this.identity({ gamerId: gamer.id, applicationId: app, displayName: gamer.name, avatar: gamer.avatar, roles });
  }
}

export interface HttpAnswer {
  status: number;
  body: unknown;
  ms: number;
}

/** One HTTP call with a timeout, JSON in and out; never throws for HTTP statuses. */
export async function call(method: string, url: string, headers: Record<string, string>, body?: unknown, timeoutMs = 600_000): Promise<HttpAnswer> {
  const t0 = performance.now();
  const response = await fetch(url, {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  const ms = performance.now() - t0;
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: response.status, body: parsed, ms };
}

/** Starts a node process of the workspace (a service or the ceiling server) and waits for its /healthz. */
export async function startNode(script: string, env: Record<string, string>, healthUrl: string, args: string[] = [], logFile?: string): Promise<ChildProcess> {
  const { openSync } = await import('node:fs');
  const out = logFile ? openSync(logFile, 'a') : 'ignore';
  const child = spawn(process.execPath, [...args, script], { env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}${logFile ? `; see ${logFile}` : ''}`);
    try {
      const r = await fetch(healthUrl, { signal: AbortSignal.timeout(1_000) });
      if (r.ok) return child;
    } catch {
      /* not up yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill('SIGTERM');
  throw new Error(`${script} did not answer ${healthUrl} within 60 s`);
}

/** SIGTERM, then wait for the exit (SIGKILL after `graceMs`). */
export async function stopNode(child: ChildProcess, graceMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
