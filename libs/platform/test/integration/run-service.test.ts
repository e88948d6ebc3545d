import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('../support/run-service-child.ts', import.meta.url));

/** Runs the child service with `env`; `lines` is what it said so far, `exited` its end. */
function runChild(env: Record<string, string>) {
  const child = spawn(process.execPath, [CHILD], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as string | null, stderr }));
  const said = async (line: string) => {
    for (let i = 0; i < 200 && !lines.some((l) => l.startsWith(line)); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(lines.some((l) => l.startsWith(line)), `the child said "${line}" (it said ${JSON.stringify(lines)}; stderr ${stderr})`).toBe(true);
  };
  return { child, lines, said, exited };
}

describe('runService', () => {
  it('stops cleanly on a SIGTERM that came while the service was starting, without ever listening', async () => {
    const { child, lines, said, exited } = runChild({ START_DELAY_MS: '1500' });
    await said('starting');
    child.kill('SIGTERM');
    // before: no handler yet, so the process died of the signal (or, as a container's PID 1, ran on)
    const end = await exited;
    expect({ code: end.code, signal: end.signal }).toEqual({ code: 0, signal: null });
    expect(lines).toEqual(['starting', 'started', 'closed', 'spans flushed']);
    expect(end.stderr).toContain('child: SIGTERM while starting; stopping once started');
  });

  it('exits at once on a second signal while still starting', async () => {
    const { child, said, exited } = runChild({ START_DELAY_MS: '20000' });
    await said('starting');
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill('SIGINT');
    const end = await exited;
    expect(end.code).toBe(1);
    expect(end.stderr).toContain('SIGINT again while starting; exiting now');
  });

  it('exits 0 when the close ended within the grace, however long the span export after it takes', async () => {
    const { child, lines, said, exited } = runChild({ GRACE_MS: '600', CLOSE_DELAY_MS: '200', TRACE_FLUSH_MS: '1200' });
    await said('listening');
    child.kill('SIGTERM');
    const end = await exited;
    // before: the grace timer, never cleared, fired during the export and exited 1
    expect({ code: end.code, signal: end.signal }).toEqual({ code: 0, signal: null });
    expect(lines.slice(-2)).toEqual(['closed', 'spans flushed']);
  });

  it('exits 1 when the close outlasts the grace', async () => {
    const { child, said, exited } = runChild({ GRACE_MS: '300', CLOSE_DELAY_MS: '3000' });
    await said('listening');
    child.kill('SIGTERM');
    const end = await exited;
    expect(end.code).toBe(1);
  });
});
