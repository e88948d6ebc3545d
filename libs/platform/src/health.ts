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

/** GET /healthz: the process answers. GET /readyz: every dependency answers too. */
export const healthPlugin = fp<{ checks: Record<string, ReadinessCheck> }>(async (app: FastifyInstance, opts) => {
  app.get('/healthz', { config: { auth: false }, logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { auth: false }, logLevel: 'warn' }, async (_request, reply) => {
    const entries = await Promise.all(
      Object.entries(opts.checks).map(async ([name, check]) => {
        try {
          await withTimeout(check(), CHECK_TIMEOUT_MS);
          return [name, 'ok'] as const;
        } catch {
          return [name, 'failed'] as const;
        }
      }),
    );
    const ready = entries.every(([, result]) => result === 'ok');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks: Object.fromEntries(entries) });
  });
}, { name: 'health' });
