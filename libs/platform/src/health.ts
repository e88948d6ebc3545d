import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge } from 'prom-client';

export type ReadinessCheck = () => Promise<unknown>;

const CHECK_TIMEOUT_MS = 2_000;
/**
 * How long a /readyz result stays in `gfts_readiness_check`. Probes call it every few
 * seconds; a result no probe renewed (the gateway, probed on /healthz, whose /readyz an
 * operator called once during an incident) is gone from the next scrape rather than held
 * for the pod's life, where a stale 0 kept GftsDependencyUnavailable firing.
 */
export const READINESS_RESULT_TTL_MS = 60_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export interface Readiness {
  status: 'ok' | 'unavailable';
  checks: Record<string, 'ok' | 'failed'>;
}

/** Runs every check at once, each bounded in time: what /readyz and the admin health routes answer. */
export async function readiness(checks: Record<string, ReadinessCheck>): Promise<Readiness> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await withTimeout(check(), CHECK_TIMEOUT_MS);
        return [name, 'ok'] as const;
      } catch {
        return [name, 'failed'] as const;
      }
    }),
  );
  const ready = entries.every(([, result]) => result === 'ok');
  return { status: ready ? 'ok' : 'unavailable', checks: Object.fromEntries(entries) };
}

/**
 * GET /healthz: the process answers. GET /readyz: every dependency answers too.
 * Each /readyz answer also sets `gfts_readiness_check{check}` (1 ok, 0 failed; for
 * READINESS_RESULT_TTL_MS) and counts
 * a change of the overall answer in `gfts_readiness_changes_total`, so that readiness
 * flapping (a dependency that comes and goes) shows on the dashboard and in an alert,
 * not only as pods leaving and rejoining the Service endpoints.
 */
export const healthPlugin = fp<{ checks: Record<string, ReadinessCheck>; now?: () => number }>(async (app: FastifyInstance, opts) => {
  const now = opts.now ?? Date.now;
  /** when each check's result was set */
  const setAt = new Map<string, number>();
  const checkGauge = new Gauge({
    name: 'gfts_readiness_check',
    help: 'result of each readiness check at the last GET /readyz of the last minute (1 ok, 0 failed)',
    labelNames: ['check'],
    registers: [app.metrics],
    collect() {
      for (const [name, at] of setAt) {
        if (now() - at <= READINESS_RESULT_TTL_MS) continue;
        this.remove({ check: name });
        setAt.delete(name);
      }
    },
  });
  const changes = new Counter({
    name: 'gfts_readiness_changes_total',
    help: 'changes of the GET /readyz answer between ready and unready',
    registers: [app.metrics],
  });
  let lastReady: boolean | undefined;
  app.get('/healthz', { config: { auth: false }, logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { auth: false }, logLevel: 'warn' }, async (_request, reply) => {
    const result = await readiness(opts.checks);
    const ready = result.status === 'ok';
    for (const [name, outcome] of Object.entries(result.checks)) {
      checkGauge.set({ check: name }, outcome === 'ok' ? 1 : 0);
      setAt.set(name, now());
    }
    if (lastReady !== undefined && lastReady !== ready) changes.inc();
    lastReady = ready;
    return reply.code(ready ? 200 : 503).send(result);
  });
}, { name: 'health', dependencies: ['metrics'] });
