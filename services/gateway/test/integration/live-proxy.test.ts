import { notificationsRoutes } from '@gfts/contracts';
import { eventually, listen, mintToken, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, testLogLevel } from '@gfts/testkit';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildGateway } from '../../src/app.ts';
import { readGatewayConfig } from '../../src/config.ts';
import { askUpgrade, liveUpstream, type LiveUpstream } from '../support/live-upstream.ts';

const LIVE = notificationsRoutes.live.url;
const DOWN = 'http://127.0.0.1:9';

/** http_request_duration_seconds samples of the live route, by status. */
async function liveSamples(gatewayUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const [, labels = '', count] of text.matchAll(/^http_request_duration_seconds_count\{([^}]*)\} (\d+)$/gm)) {
    const status = /status_code="(\d+)"/.exec(labels)?.[1];
    if (labels.includes(`route="${LIVE}"`) && status) counts[status] = Number(count);
  }
  return counts;
}

describe('the live channel through the gateway', () => {
  const auth = { authorization: `Bearer ${mintToken()}` };
  let gateway: FastifyInstance | undefined;
  let upstream: LiveUpstream | undefined;
  afterEach(async () => {
    await upstream?.close();
    await gateway?.close();
    upstream = undefined;
    gateway = undefined;
  });

  /** A gateway in front of `notificationsUrl`; `authMs` stands for a slow authentication (a rate-limit store far away). */
  async function gatewayTo(notificationsUrl: string, authMs = 0): Promise<string> {
    gateway = await buildGateway(readGatewayConfig({
      FRIENDSHIP_URL: DOWN, TASKS_URL: DOWN, NOTIFICATIONS_URL: notificationsUrl,
      JWT_SECRET: TEST_JWT_SECRET, INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: testLogLevel(),
    }));
    if (authMs > 0) gateway.addHook('preHandler', () => new Promise((resolve) => setTimeout(resolve, authMs)));
    return listen(gateway);
  }

  /** Stops the gateway 100 ms after asking for an upgrade: the answer, and how long the close took (or 'still closing' after 2 s). */
  async function stopWhileUpgrading(url: string): Promise<{ status: number; closeMs: unknown }> {
    const answer = askUpgrade(`${url}${LIVE}`, auth);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopping = gateway!;
    gateway = undefined;
    const started = Date.now();
    const closing = stopping.close().then(() => Date.now() - started);
    const { status, socket } = await answer;
    const closeMs = await Promise.race([closing, new Promise((resolve) => setTimeout(() => resolve('still closing'), 2_000))]);
    socket?.destroy();
    return { status, closeMs };
  }

  it('counts an upgrade refused because the service is down as a 502 of the live route', async () => {
    const url = await gatewayTo(DOWN);
    expect((await askUpgrade(`${url}${LIVE}`, auth)).status).toBe(502);
    expect((await askUpgrade(`${url}${LIVE}`, auth)).status).toBe(502);
    expect(await liveSamples(url)).toEqual({ 502: 2 });
  });

  it('counts a refusal of the service, relayed, with its status', async () => {
    upstream = await liveUpstream({ refuse: 401 });
    const url = await gatewayTo(upstream.url);
    expect((await askUpgrade(`${url}${LIVE}`, auth)).status).toBe(401);
    expect(await liveSamples(url)).toEqual({ 401: 1 });
  });

  it('counts a piped upgrade as a 101', async () => {
    upstream = await liveUpstream();
    const url = await gatewayTo(upstream.url);
    const { status, socket } = await askUpgrade(`${url}${LIVE}`, auth);
    expect(status).toBe(101);
    const pipes = async () => Number(/^gateway_live_pipes(?:\{[^}]*\})? (\d+)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1]);
    expect(await pipes()).toBe(1);
    socket?.destroy();
    expect(await liveSamples(url)).toEqual({ 101: 1 });
    await eventually(async () => ((await pipes()) === 0 ? true : undefined));
  });

  it('stops at once while an upgrade waits for the service: the client is told 503, nothing is piped after the close', async () => {
    upstream = await liveUpstream({ delayMs: 500 });
    const { status, closeMs } = await stopWhileUpgrading(await gatewayTo(upstream.url));
    expect(status).toBe(503);
    expect(closeMs).toBeLessThan(400);
  });

  it('stops at once while an upgrade is being authenticated: it is not sent to the service, the client is told 503', async () => {
    upstream = await liveUpstream();
    const { status, closeMs } = await stopWhileUpgrading(await gatewayTo(upstream.url, 300));
    expect(status).toBe(503);
    expect(closeMs).toBeLessThan(600);
  });
});
