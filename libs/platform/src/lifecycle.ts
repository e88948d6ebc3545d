import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import type { FastifyInstance } from 'fastify';
import { ConfigError } from './config.ts';
import { stopTracing } from './tracing/state.ts';

/** What runService reads of a service's configuration (every service's config has it). */
export interface ListenConfig {
  PORT: number;
  HOST: string;
  /** the listen queue's length */
  LISTEN_BACKLOG: number;
  SHUTDOWN_GRACE_MS: number;
}

export interface StartedService {
  app: FastifyInstance;
  config: ListenConfig;
}

export interface RunOptions {
  name: string;
  /** reads the configuration and builds the app; a ConfigError is reported and exits 1 */
  start: () => Promise<StartedService>;
}

/**
 * The heap V8 may grow to, against the memory the process may use (its container's limit):
 * above three quarters of it, a full heap and the rest of the process (code, socket and
 * driver buffers: ~100 MiB measured in the notifications service) no longer fit, and the
 * kernel may kill the process before its collector works hard. Node 24 sizes the heap from
 * the container but never below ~259 MiB: a 256 Mi pod gets a heap limit larger than itself
 * (measured, bench/results/2026-11-27-pod-memory.md). A quarter is a floor, not a guarantee:
 * a process holding many sockets needs more room outside its heap. Undefined when it fits,
 * or when nothing limits the process.
 */
export function heapOverMemoryLimit(heapLimitBytes: number, memoryLimitBytes: number | undefined, machineBytes: number): { heapLimitMb: number; memoryLimitMb: number } | undefined {
  // cgroups without a limit answer a huge number (or 0)
  if (!memoryLimitBytes || memoryLimitBytes >= machineBytes) return undefined;
  if (heapLimitBytes <= memoryLimitBytes * 0.75) return undefined;
  return { heapLimitMb: Math.round(heapLimitBytes / 1_048_576), memoryLimitMb: Math.round(memoryLimitBytes / 1_048_576) };
}

/**
 * Longest the export of buffered spans may take once the grace period is over. Until
 * 2026-11-28 the process exited there without exporting them, losing the trace of exactly
 * the stop that went wrong.
 */
export const TRACE_FLUSH_AFTER_GRACE_MS = 1_000;

/**
 * Starts a service and stops it cleanly on SIGTERM/SIGINT: stop accepting, let in-flight
 * requests and consumers finish (the app's onClose hooks), then exit; a stop that takes
 * longer than the grace period exits non-zero.
 *
 * The signals are listened for before the start: a Node process that is its container's
 * PID 1 (our images' exec-form entrypoints) does not die of a SIGTERM it does not handle,
 * so one sent while the service started (a pod deleted during a slow start) was lost, and
 * the pod ran on until its grace ended in SIGKILL, its consumers' messages held until their
 * ack_wait. A signal during the start now stops the service as soon as it started; a second
 * one exits (1) once the spans buffered so far are exported, within TRACE_FLUSH_AFTER_GRACE_MS.
 */
export async function runService(opts: RunOptions): Promise<void> {
  // the stop once the service started (a signal before waits for it)
  const started: { stop?: (signal: string) => void } = {};
  let signalledWhileStarting: string | undefined;
  let exitingWhileStarting = false;
  const onSignal = (signal: string) => {
    if (started.stop) return started.stop(signal);
    if (signalledWhileStarting) {
      console.error(`${opts.name}: ${signal} again while starting; exiting now`);
      exitingWhileStarting = true;
      // the spans of the start so far go too, within the same bound as past the grace
      void Promise.race([stopTracing(), new Promise((resolve) => setTimeout(resolve, TRACE_FLUSH_AFTER_GRACE_MS))]).finally(() => process.exit(1));
      return;
    }
    signalledWhileStarting = signal;
    console.error(`${opts.name}: ${signal} while starting; stopping once started`);
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  let app: FastifyInstance;
  let graceMs: number;
  try {
    const service = await opts.start();
    app = service.app;
    graceMs = service.config.SHUTDOWN_GRACE_MS;
    // stopped before it took any request: no listening, its consumers drained by the close
    if (!signalledWhileStarting) await app.listen({ port: service.config.PORT, host: service.config.HOST, backlog: service.config.LISTEN_BACKLOG });
    const overLimit = heapOverMemoryLimit(getHeapStatistics().heap_size_limit, process.constrainedMemory(), totalmem());
    if (overLimit) {
      app.log.warn(overLimit, 'the heap may grow past three quarters of the memory limit: the process can be killed before it collects. Set NODE_OPTIONS=--max-old-space-size to about half the limit, or raise the limit (docs/deploy.md, "Memory")');
    }
  } catch (error) {
    if (error instanceof ConfigError) console.error(`${opts.name}: ${error.message}`);
    else console.error(`${opts.name}: failed to start:`, error);
    await stopTracing();
    process.exit(1);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    let overGrace = false;
    const timer = setTimeout(() => {
      overGrace = true;
      app.log.error({ graceMs: graceMs }, 'shutdown grace period exceeded');
      // the spans buffered so far (the last requests before the stop, what held it) are
      // exported too, within a bound: the pod's grace leaves a margin above SHUTDOWN_GRACE_MS
      void Promise.race([stopTracing(), new Promise((resolve) => setTimeout(resolve, TRACE_FLUSH_AFTER_GRACE_MS))]).finally(() => process.exit(1));
    }, graceMs);
    timer.unref();
    // server.close() only drops connections idle at that instant; keep-alive connections
    // busy with a request go idle later and would hold the process for the keep-alive
    // timeout. Close each as soon as its last response is out.
    const reaper = setInterval(() => app.server.closeIdleConnections(), 50);
    reaper.unref();
    // the spans of the last requests and events are exported before the process ends
    app.close().then(
      async () => {
        // a close that ends while the grace timer's flush runs leaves that flush to finish
        if (overGrace) return;
        // closed within the grace: a slow export of the spans after it is no failed stop
        // (until 2026-11-29 the timer still fired during it and exited 1)
        clearTimeout(timer);
        await stopTracing();
        process.exit(0);
      },
      async (error: unknown) => {
        clearTimeout(timer);
        app.log.error({ err: error }, 'error while shutting down');
        await stopTracing();
        process.exit(1);
      },
    );
  };
  // a second signal during the start is exiting already (its spans' export under way)
  if (exitingWhileStarting) return;
  started.stop = stop;
  if (signalledWhileStarting) stop(signalledWhileStarting);
}
