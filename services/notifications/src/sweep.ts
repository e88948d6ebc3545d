import type { FastifyBaseLogger } from 'fastify';

interface Sweepable {
  sweep(): Promise<number>;
}

/**
 * Deletes expired notifications and used tickets every `intervalMs`, on a store without TTL
 * indexes (FerretDB v1). Reads already skip what has expired, so this only frees space.
 */
export function startSweep(targets: Sweepable[], intervalMs: number, log: Pick<FastifyBaseLogger, 'warn'>): { stop(): void } {
  const timer = setInterval(() => {
    for (const target of targets) target.sweep().catch((error: unknown) => log.warn({ err: error }, 'expiry sweep failed'));
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
