import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface ServiceProcess {
  child: ChildProcess;
  /** everything the process printed so far (stdout and stderr) */
  output(): string;
  /** resolves when the process exits, with its code and output */
  exited: Promise<{ code: number | null; output: string }>;
  /** resolves with the base URL once the process logs that it listens */
  listening(timeoutMs?: number): Promise<string>;
}

/**
 * The tracing register module, loaded with `--import` as the images' entrypoint does
 * (`node --import @gfts/platform/tracing src/server.ts`); it does nothing without OTEL_* settings.
 */
export const TRACING_IMPORT = ['--import', fileURLToPath(new URL('../../platform/src/tracing/register.ts', import.meta.url))];

/** Runs a service's `src/server.ts` as a real process (signals, exit codes, config errors). */
export function spawnService(serverScript: string, env: Record<string, string>, nodeArgs: readonly string[] = []): ServiceProcess {
  const child = spawn(process.execPath, [...nodeArgs, serverScript], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = once(child, 'exit').then(([code]) => ({ code: code as number | null, output }));
  return {
    child,
    output: () => output,
    exited,
    async listening(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const match = /Server listening at (http:\/\/[\d.]+:\d+)/.exec(output);
        if (match) return match[1]!;
        if (child.exitCode !== null) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`${serverScript} did not start:\n${output}`);
    },
  };
}

/** A loopback port free right now, so a restarted process can take the same address. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}
