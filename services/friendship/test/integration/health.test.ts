import { gamer } from '@gfts/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';

describe('friendship service health', () => {
  let stack: FriendshipStack;
  beforeAll(async () => {
    stack = await startFriendshipStack();
  });
  afterAll(async () => stack?.close());

  it('is ready once MongoDB and NATS answer', async () => {
    const response = await fetch(`${stack.friendshipUrl}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', checks: { mongodb: 'ok', nats: 'ok' } });
  });

  it('refuses a request that reaches it without the gateway', async () => {
    const response = await fetch(`${stack.friendshipUrl}/api/v1/friendship`, { headers: { 'x-gfts-identity': 'forged' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });

  it('answers unknown paths through the gateway with a problem body', async () => {
    const me = gamer(randomUUID(), 'Smoke');
    const response = await stack.api('GET', '/api/v1/friendship/nowhere/at/all', { headers: me.auth });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});
