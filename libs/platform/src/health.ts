import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export type ReadinessCheck = () => Promise<unknown>;

const CHECK_TIMEOUT_MS = 2_000;

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

/** GET /healthz: the process answers. GET /readyz: every dependency answers too. */
export const healthPlugin = fp<{ checks: Record<string, ReadinessCheck> }>(async (app: FastifyInstance, opts) => {
  app.get('/healthz', { config: { auth: false }, logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { auth: false }, logLevel: 'warn' }, async (_request, reply) => {
    const result = await readiness(opts.checks);
    return reply.code(result.status === 'ok' ? 200 : 503).send(result);
  });
}, { name: 'health' });
