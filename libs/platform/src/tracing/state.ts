/**
 * Whether this process started the tracing SDK (register.ts, loaded with `node --import`),
 * and how to flush it. Everything else asks here, so that with tracing off no hook, log
 * mixin or header injection runs at all.
 */
let stop: (() => Promise<void>) | undefined;

export function markTracingStarted(shutdown: () => Promise<void>): void {
  stop = shutdown;
}

export function tracingStarted(): boolean {
  return stop !== undefined;
}

/** Exports the spans still buffered; called once on the way out. Never throws. */
export async function stopTracing(): Promise<void> {
  const shutdown = stop;
  stop = undefined;
  await shutdown?.().catch((error: unknown) => console.error('tracing: could not flush spans:', error));
}
