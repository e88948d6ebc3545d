import { randomUUID } from 'node:crypto';
import { gamer, mintToken, TEST_JWT_SECRET, unsignedToken } from '@gfts/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClient } from '../support/live-client.ts';
import { startNotificationsStack, type NotificationsStack } from '../support/stack.ts';

const LIVE = '/api/v1/notifications/live';

describe('who may open the live channel', () => {
  let stack: NotificationsStack;
  let ws: string;
  beforeAll(async () => {
    stack = await startNotificationsStack();
    ws = stack.replicas[0]!.wsUrl;
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('refuses the upgrade with 401 without credentials, with a bad token, an expired one or alg none', async () => {
    const app = randomUUID();
    const cases: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-a-token' },
      { authorization: `Bearer ${mintToken({ app, expiresIn: -60 })}` },
      { authorization: `Bearer ${mintToken({ app, secret: `${TEST_JWT_SECRET}-other` })}` },
      { authorization: `Bearer ${unsignedToken({ sub: randomUUID(), app, exp: Math.floor(Date.now() / 1000) + 60 })}` },
    ];
    for (const headers of cases) {
      const refusal = await LiveClient.refusal(`${ws}${LIVE}`, headers);
      expect(refusal.status, JSON.stringify(headers)).toBe(401);
      expect(JSON.parse(refusal.body)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    }
  });

  it('opens with the bearer header', async () => {
    const ann = gamer(randomUUID(), 'Ann');
    const live = await LiveClient.open(`${ws}${LIVE}`, { headers: ann.auth });
    live.close();
    expect((await live.closed).code).toBe(1005);
  });

  it('records an opened socket as a 101 of the live path in its metrics, as the gateway does', async () => {
    const samples = async () => {
      const text = await (await fetch(`${stack.replicas[0]!.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('http_request_duration_seconds_count{') && l.includes(`route="${LIVE}"`) && l.includes('status_code="101"'));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = await samples();
    const live = await LiveClient.open(`${ws}${LIVE}`, { headers: gamer(randomUUID(), 'Ann').auth });
    live.close();
    await live.closed;
    expect(await samples()).toBe(before + 1);
  });

  it('answers a plain GET of the live path with 426, another method with 405', async () => {
    const ann = gamer(randomUUID(), 'Ann');
    const response = await stack.api('GET', LIVE, { headers: ann.auth });
    expect(response.status).toBe(426);
    expect(response.body).toMatchObject({ code: 'UPGRADE_REQUIRED' });
    const post = await stack.api('POST', LIVE, { headers: ann.auth });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const ticket = await stack.api('GET', '/api/v1/notifications/ticket', { headers: ann.auth });
    expect(ticket.status).toBe(405);
    expect(ticket.headers.get('allow')).toBe('POST');
  });

  it('takes a ticket once: a second use, a forged or altered ticket, or none at all is a 401', async () => {
    const ann = gamer(randomUUID(), 'Ann');
    const issued = await stack.api<{ ticket: string; expiresAt: string }>('POST', '/api/v1/notifications/ticket', { headers: ann.auth });
    // a credential: not to be stored (the gateway's own answer had no cache-control until 2026-11-28)
    expect(issued.headers.get('cache-control')).toBe('no-store');
    expect(issued.status).toBe(200);
    const { ticket, expiresAt } = issued.body;
    expect(ticket).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(ticket).not.toContain(ann.token);
    const life = Date.parse(expiresAt) - Date.now();
    expect(life).toBeGreaterThan(0);
    expect(life).toBeLessThanOrEqual(30_000);

    const first = await LiveClient.open(`${ws}${LIVE}?ticket=${ticket}`);
    const again = await LiveClient.refusal(`${ws}${LIVE}?ticket=${ticket}`);
    expect(again.status).toBe(401);
    first.close();

    const altered = `${ticket.slice(0, -2)}${ticket.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await LiveClient.refusal(`${ws}${LIVE}?ticket=${altered}`)).status).toBe(401);
    expect((await LiveClient.refusal(`${ws}${LIVE}?ticket=${'A'.repeat(80)}`)).status).toBe(401);
    // A ticket is good for the live channel only, never as a bearer token elsewhere.
    const fresh = await stack.api<{ ticket: string }>('POST', '/api/v1/notifications/ticket', { headers: ann.auth });
    expect((await stack.api('GET', `/api/v1/notifications?ticket=${fresh.body.ticket}`)).status).toBe(401);
  });

  it('issues tickets only against a bearer token', async () => {
    expect((await stack.api('POST', '/api/v1/notifications/ticket')).status).toBe(401);
  });

  it('takes a ticket once even across gateway and notifications replicas', async () => {
    const second = await stack.addReplica();
    const ann = gamer(randomUUID(), 'Ann');
    const { body } = await stack.api<{ ticket: string }>('POST', '/api/v1/notifications/ticket', { headers: ann.auth });
    const first = await LiveClient.open(`${second.wsUrl}${LIVE}?ticket=${body.ticket}`);
    expect((await LiveClient.refusal(`${ws}${LIVE}?ticket=${body.ticket}`)).status).toBe(401);
    first.close();
  });

  it('ignores identity a caller asserts and reaches the service only through the gateway', async () => {
    const direct = stack.replicas[0]!.url.replace(/^http/, 'ws');
    const refusal = await LiveClient.refusal(`${direct}${LIVE}`, { 'x-gfts-identity': 'forged' });
    expect(refusal.status).toBe(401);
  });
});
