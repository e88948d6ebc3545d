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

  it('keeps what it holds in progress while `take` waits past ack_wait: another puller gets none of it', async () => {
    const nc = await connect({ servers: infra().natsUrl });
    try {
      const stream = natsPrefix();
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
      // the shortest ack_wait the services allow
      await jsm.consumers.add(stream, { durable_name: 'held', ack_policy: AckPolicy.Explicit, ack_wait: 1_000_000_000 });
      const js = jetstream(nc);
      for (let i = 0; i < 4; i++) await js.publish(`${stream}.event`, String(i));

      const seen: [string, number][] = [];
      let stopping = false;
      let blocked: () => void = () => undefined;
      const isBlocked = new Promise<void>((resolve) => (blocked = resolve));
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      // one pull of 4 gets them all; `take` holds the first (a store away), the other three wait in the pull's queue
      const pulling = pullUntilStopped(await js.consumers.get(stream, 'held'), 4, () => stopping, async (msg) => {
        seen.push([msg.string(), msg.info.deliveryCount]);
        if (seen.length === 1) {
          blocked();
          await released;
        }
        await msg.ackAck();
        if (seen.length >= 4) stopping = true;
      });
      await isBlocked;
      // another replica pulls for three times ack_wait while the first holds the four
      const stolen: [string, number][] = [];
      for await (const msg of await (await js.consumers.get(stream, 'held')).fetch({ max_messages: 4, expires: 3_000 })) {
        stolen.push([msg.string(), msg.info.deliveryCount]);
      }
      release();
      await pulling;
      expect(stolen).toEqual([]);
      expect(seen).toEqual([['0', 1], ['1', 1], ['2', 1], ['3', 1]]);
      const info = await jsm.consumers.info(stream, 'held');
      expect(info.num_pending + info.num_ack_pending + info.num_redelivered).toBe(0);
    } finally {
      await nc.close();
    }
  });
});
