import { randomUUID } from 'node:crypto';
import { infra, tcpHop, uniqueSuffix, type TcpHop } from '@gfts/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFriendshipStack, type FriendshipStack } from '../support/stack.ts';
import { world } from '../support/world.ts';

/**
 * The friendship service with its store cut off behind a TCP hop (a network partition, the
 * store's pod restarting): a request that needs the store gets a 503 the client may retry
 * (docs/client.md), within the gateway's timeout, not a 500 that reads as a bug.
 */
describe('a store outage during a request', () => {
  let stack: FriendshipStack;
  let hop: TcpHop;
  beforeAll(async () => {
    const { hostname, port } = new URL(infra().mongoUrl);
    hop = await tcpHop(hostname, Number(port));
    stack = await startFriendshipStack({ MONGO_URL: `mongodb://${hop.host}:${hop.port}/friendship_outage_${uniqueSuffix()}` });
  });
  afterAll(async () => {
    hop?.restore();
    await stack?.close();
    await hop?.close();
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After while the store is away, and serves the request once it is back', async () => {
    const w = world(stack);
    const [a, b] = await w.gamers(2, randomUUID());
    hop.cut();
    try {
      const started = Date.now();
      const during = await w.block(a!, b!.id);
      // before: 500 INTERNAL, "an error the service did not expect (a bug)"
      expect({ status: during.status, code: (during.body as unknown as { code: string }).code, retryAfter: during.headers.get('retry-after') })
        .toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: '5' });
      // the service's own answer, before the gateway's UPSTREAM_TIMEOUT_MS (10 s) would answer 504
      expect(Date.now() - started).toBeLessThan(9_000);
    } finally {
      hop.restore();
    }
    let after = 0;
    for (let i = 0; i < 100 && after !== 200; i++) {
      after = (await w.block(a!, b!.id)).status;
      if (after !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(after).toBe(200);
    expect((await w.blocked(a!)).body.map((entry) => entry.toGamer.id)).toEqual([b!.id]);
  });
});
