import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { listen, mintToken, TEST_INTERNAL_SECRET, TEST_JWT_SECRET } from '@gfts/testkit';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';

const SERVER = fileURLToPath(new URL('../../src/server.ts', import.meta.url));

interface Exited {
  code: number | null;
  stderr: string;
}

function startGatewayProcess(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<Exited> } {
  const child = spawn(process.execPath, [SERVER], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = once(child, 'exit').then(([code]) => ({ code: code as number | null, stderr: output }));
  return { child, output: () => output, exited };
}

async function waitForListening(output: () => string): Promise<number> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const match = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output());
    if (match) return Number(match[1]);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gateway did not start:\n${output()}`);
}

describe('gateway process', () => {
  it('fails at start naming every wrong or missing setting', async () => {
    const { exited } = startGatewayProcess({ PORT: 'http', FRIENDSHIP_URL: 'friendship:8081', JWT_SECRET: 'short' });
    const { code, stderr } = await exited;
    expect(code).toBe(1);
    expect(stderr).toMatch(/invalid configuration/);
    for (const setting of ['PORT', 'FRIENDSHIP_URL', 'TASKS_URL is required', 'JWT_SECRET', 'INTERNAL_TOKEN_SECRET is required']) {
      expect(stderr).toContain(setting);
    }
  });

  it('finishes in-flight requests on SIGTERM, then exits 0', async () => {
    // A slow upstream keeps requests in flight while the signal arrives.
    const upstream = Fastify();
    upstream.all('/*', async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { ok: true };
    });
    const upstreamUrl = await listen(upstream);
    const gateway = startGatewayProcess({
      PORT: '0', HOST: '127.0.0.1', FRIENDSHIP_URL: upstreamUrl, TASKS_URL: upstreamUrl,
      JWT_SECRET: TEST_JWT_SECRET, INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, SHUTDOWN_GRACE_MS: '5000',
    });
    try {
      const port = await waitForListening(gateway.output);
      const auth = { authorization: `Bearer ${mintToken()}` };
      const inFlight = Array.from({ length: 25 }, () => fetch(`http://127.0.0.1:${port}/api/v1/tasks`, { headers: auth }));
      await new Promise((resolve) => setTimeout(resolve, 100));
      gateway.child.kill('SIGTERM');
      const statuses = await Promise.all(inFlight.map(async (request) => (await request).status));
      expect(statuses).toEqual(Array(25).fill(200));
      const { code, stderr } = await gateway.exited;
      expect(code, stderr).toBe(0);
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    } finally {
      gateway.child.kill('SIGKILL');
      await upstream.close();
    }
  });
});
