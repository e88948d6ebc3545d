import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { eventually, listen, mintToken, spawnService, startOtlpReceiver, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, TRACING_IMPORT } from '@gfts/testkit';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';

const SERVER = fileURLToPath(new URL('../../src/server.ts', import.meta.url));

/** A stand-in for both services that answers after `delayMs` (never, with Infinity), counting what reached it. */
async function slowUpstream(delayMs: number) {
  const app = Fastify({ forceCloseConnections: true });
  const seen = { arrived: 0 };
  app.all('/*', async () => {
    seen.arrived++;
    await new Promise((resolve) => (Number.isFinite(delayMs) ? setTimeout(resolve, delayMs) : undefined));
    return { ok: true };
  });
  return { url: await listen(app), seen, close: () => app.close() };
}

/**
 * Runs a stop that outlives the grace period: one request the gateway answers itself (its
 * span waits in the buffer), one held by the upstream, then SIGTERM; answers how it exited.
 */
async function stopPastGrace(gateway: ReturnType<typeof gatewayProcess>, upstream: Awaited<ReturnType<typeof slowUpstream>>) {
  const url = await gateway.listening();
  expect((await fetch(`${url}/openapi.json`)).status).toBe(200);
  const held = fetch(`${url}/api/v1/tasks`, { headers: { authorization: `Bearer ${mintToken()}` } }).catch(() => undefined);
  await eventually(async () => upstream.seen.arrived === 1, 10_000);
  gateway.child.kill('SIGTERM');
  const exited = await gateway.exited;
  await held;
  return exited;
}

/** The gateway as a process in front of `upstreamUrl`, with `env` over the settings every test here needs. */
function gatewayProcess(upstreamUrl: string, env: Record<string, string>, nodeArgs: readonly string[] = []) {
  return spawnService(SERVER, {
    PORT: '0', HOST: '127.0.0.1', FRIENDSHIP_URL: upstreamUrl, TASKS_URL: upstreamUrl,
    JWT_SECRET: TEST_JWT_SECRET, INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, ...env,
  }, nodeArgs);
}

describe('gateway process', () => {
  it('fails at start naming every wrong or missing setting', async () => {
    const { exited } = spawnService(SERVER, { PORT: 'http', FRIENDSHIP_URL: 'friendship:8081', JWT_SECRET: 'short' });
    const { code, output: stderr } = await exited;
    expect(code).toBe(1);
    expect(stderr).toMatch(/invalid configuration/);
    for (const setting of ['PORT', 'FRIENDSHIP_URL', 'TASKS_URL is required', 'JWT_SECRET', 'INTERNAL_TOKEN_SECRET is required']) {
      expect(stderr).toContain(setting);
    }
  });

  it('finishes in-flight requests on SIGTERM, then exits 0', async () => {
    // A slow upstream keeps requests in flight while the signal arrives.
    const upstream = await slowUpstream(1_000);
    const gateway = gatewayProcess(upstream.url, { SHUTDOWN_GRACE_MS: '5000' });
    try {
      const url = await gateway.listening();
      // 25 gamers: one gamer's requests at once are capped (RATE_LIMIT_IN_FLIGHT_MAX, 16)
      const inFlight = Array.from({ length: 25 }, () => fetch(`${url}/api/v1/tasks`, { headers: { authorization: `Bearer ${mintToken()}` } }));
      // the signal comes once every request is in flight (reached the upstream through the
      // gateway); a request still in the accept queue at SIGTERM is not in flight
      await eventually(async () => upstream.seen.arrived === 25, 20_000);
      gateway.child.kill('SIGTERM');
      const statuses = await Promise.all(inFlight.map(async (request) => (await request).status));
      expect(statuses).toEqual(Array(25).fill(200));
      const { code, output } = await gateway.exited;
      expect(code, output).toBe(0);
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      gateway.child.kill('SIGKILL');
      await upstream.close();
    }
  });
  it('exports its buffered spans when the grace period runs out, then exits 1', async () => {
    // an upstream that never answers holds one request past SHUTDOWN_GRACE_MS
    const upstream = await slowUpstream(Infinity);
    const receiver = await startOtlpReceiver();
    const gateway = gatewayProcess(upstream.url, {
      SHUTDOWN_GRACE_MS: '1000', UPSTREAM_TIMEOUT_MS: '60000',
      // nothing leaves the span buffer before the process's stop: only a flush exports them
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '600000',
    }, TRACING_IMPORT);
    try {
      // GET /openapi.json, answered by the gateway itself: its span (probes have none) waits in the buffer
      const { code, output } = await stopPastGrace(gateway, upstream);
      expect(code, output).toBe(1);
      expect(output).toContain('shutdown grace period exceeded');
      expect(receiver.spans.some((span) => span.service === 'gateway' && span.name === 'GET /openapi.json'), JSON.stringify(receiver.spans.map((s) => s.name))).toBe(true);
    } finally {
      gateway.child.kill('SIGKILL');
      await upstream.close();
      await receiver.close();
    }
  });

  it('exits 1 once the grace period ran out, though the stop then finishes while the spans are exported', async () => {
    // the held request ends 300 ms past the grace; the span export (to a collector that never
    // answers) is still running then
    const upstream = await slowUpstream(1_300);
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const gateway = gatewayProcess(upstream.url, {
      SHUTDOWN_GRACE_MS: '1000',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(silent.address() as { port: number }).port}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '600000',
    }, TRACING_IMPORT);
    try {
      const { code, output } = await stopPastGrace(gateway, upstream);
      expect(output).toContain('shutdown grace period exceeded');
      expect(code, output).toBe(1);
    } finally {
      gateway.child.kill('SIGKILL');
      await upstream.close();
      silent.closeAllConnections();
      silent.close();
    }
  });
});
