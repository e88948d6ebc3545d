import { pullUntilStopped } from '@gfts/platform';
import { infra, natsPrefix } from '@gfts/testkit';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';

/** The pull loop every durable consumer of the services uses (libs/platform/src/jetstream-pull.ts), on a stream of its own. */
describe('pullUntilStopped', () => {
  it('keeps pulling through a message that takes longer than the pull\'s heartbeat check', async () => {
    const nc = await connect({ servers: infra().natsUrl });
    try {
      const stream = natsPrefix();
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
      await jsm.consumers.add(stream, { durable_name: 'slow', ack_policy: AckPolicy.Explicit });
      const js = jetstream(nc);
      for (let i = 0; i < 6; i++) await js.publish(`${stream}.event`, String(i));

      const seen: string[] = [];
      let stopping = false;
      // Pulls of 3: the first pull's messages have all arrived while the first of them takes
      // 2.5 s, longer than nats.js's two missed heartbeats (2 × 500 ms at a 1 s pull).
      await pullUntilStopped(await js.consumers.get(stream, 'slow'), 3, () => stopping, async (msg) => {
        seen.push(msg.string());
        if (seen.length === 1) await new Promise((resolve) => setTimeout(resolve, 2_500));
        // confirmed by the server, so the count below does not race the server's ack handling
        await msg.ackAck();
        if (seen.length === 6) stopping = true;
      });
      expect(seen).toEqual(['0', '1', '2', '3', '4', '5']);
      const info = await jsm.consumers.info(stream, 'slow');
      expect(info.num_pending + info.num_ack_pending).toBe(0);
    } finally {
      await nc.close();
    }
  });
});
