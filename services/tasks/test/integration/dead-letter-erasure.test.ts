import { randomUUID } from 'node:crypto';
import { natsNames, type StatDeadLetter } from '@gfts/contracts';
import { connectNats } from '@gfts/platform';
import { infra, interceptRequests, natsPrefix } from '@gfts/testkit';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeadLetterStore } from '../../src/stats/dead-letters.ts';
import { ensureStatsTopology } from '../../src/stats/stream.ts';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const settings = { replicas: 1, maxAgeMs: 60 * 60_000, maxBytes: 16 * 1_048_576, deadLetterMaxBytes: 16 * 1_048_576, duplicateWindowMs: 60_000, maxDeliver: 5, ackWaitMs: 30_000 };

/**
 * A gamer's erasure deletes her dead letters (a letter keeps her whole event, and its replay
 * would apply it again). A delete JetStream did not confirm must fail the erasure, which is
 * then tried again; only a letter already gone counts as deleted. Real NATS; faults at the client.
 */
describe('dead letters of an erased gamer', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connectNats(infra().natsUrl, 'dead-letter-erasure-test', quiet);
  });
  afterAll(async () => nc?.close());

  async function lettersOf(app: string, ...gamers: string[]) {
    const names = natsNames(natsPrefix());
    await ensureStatsTopology(await jetstreamManager(nc), names, settings);
    const js = jetstream(nc);
    for (const gamerId of gamers) {
      const letter: StatDeadLetter = {
        reason: 'processing failed 5 times', subject: names.statsSubject(app), streamSequence: 1, deliveryCount: 5, deadLetteredAt: new Date().toISOString(),
        payload: JSON.stringify({ eventId: randomUUID(), applicationId: app, gamerId, occurredAt: new Date().toISOString(), stats: [{ statId: 'a', value: 1 }] }),
      };
      await js.publish(names.statsDeadLetterOf(app), JSON.stringify(letter));
    }
    return names;
  }

  it('fails when a delete is not confirmed, and keeps the letter for the next try', async () => {
    const app = randomUUID();
    const [ann, bob] = [randomUUID(), randomUUID()];
    const names = await lettersOf(app, ann, bob, ann);
    let unanswered = 1;
    const faulty = interceptRequests(nc, async (subject, send) => {
      if (subject.startsWith(`$JS.API.STREAM.MSG.DELETE.${names.statsDeadLetterStream}`) && unanswered > 0) {
        unanswered--;
        throw new Error('injected: the delete timed out');
      }
      return send();
    });
    const store = new DeadLetterStore(await jetstreamManager(faulty), jetstream(faulty), names);
    await expect(store.removeOfGamer(app, ann)).rejects.toThrow('injected');
    expect((await store.list(app, 0, 10)).letters.map((l) => l.gamerId)).toEqual([ann, bob, ann]);

    // the erasure's next try deletes both
    expect(await store.removeOfGamer(app, ann)).toBe(2);
    expect((await store.list(app, 0, 10)).letters.map((l) => l.gamerId)).toEqual([bob]);
  });

  // JetStream answers such a delete in two ways ("no message found", "sequence N not found")
  // by where the message sat: each case below meets one of them
  it.each([
    // Ann's letters are the stream's first and last: the race is on the delete of one of them
    ['the first of three', 1, 0, 10057],
    ['the last one', 2, 2, 10043],
  ])('counts a letter deleted in between (a replay, an admin) as gone: %s', async (_which, raceAtDelete, index, code) => {
    const app = randomUUID();
    const [ann, bob] = [randomUUID(), randomUUID()];
    const names = await lettersOf(app, ann, bob, ann);
    const jsm = await jetstreamManager(nc);
    const all = (await new DeadLetterStore(jsm, jetstream(nc), names).list(app, 0, 10)).letters;
    let deletes = 0;
    let answered: number | undefined;
    const faulty = interceptRequests(nc, async (subject, send) => {
      const raced = subject.startsWith(`$JS.API.STREAM.MSG.DELETE.${names.statsDeadLetterStream}`) && ++deletes === raceAtDelete;
      if (raced) await jsm.streams.deleteMessage(names.statsDeadLetterStream, all[index]!.sequence);
      const reply = await send();
      if (raced) answered = (reply.json<{ error?: { err_code?: number } }>()).error?.err_code;
      return reply;
    });
    const store = new DeadLetterStore(await jetstreamManager(faulty), jetstream(faulty), names);
    expect(await store.removeOfGamer(app, ann)).toBe(2);
    expect(answered).toBe(code);
    expect((await store.list(app, 0, 10)).letters.map((l) => l.gamerId)).toEqual([bob]);
  });

  it('deletes a letter whose gamerId names her in another form (a letter is an event that failed validation), not another gamer\'s that mentions her', async () => {
    const app = randomUUID();
    const [ann, bob] = [randomUUID(), randomUUID()];
    const names = await lettersOf(app, `urn:uuid:${ann}`, `{${ann.toUpperCase()}}`, `urn:app:${app}:gamer:${ann}`, bob);
    // Bob's games against Ann: his letters, naming her in a stat, his id plain or not
    const js = jetstream(nc);
    for (const his of [bob, `urn:uuid:${bob}`]) {
      const letter: StatDeadLetter = {
        reason: 'processing failed 5 times', subject: names.statsSubject(app), streamSequence: 1, deliveryCount: 5, deadLetteredAt: new Date().toISOString(),
        payload: JSON.stringify({ eventId: randomUUID(), applicationId: app, gamerId: his, occurredAt: new Date().toISOString(), stats: [{ statId: `duel-${ann}`, value: 1 }] }),
      };
      await js.publish(names.statsDeadLetterOf(app), JSON.stringify(letter));
    }
    const store = new DeadLetterStore(await jetstreamManager(nc), jetstream(nc), names);
    expect(await store.removeOfGamer(app, ann)).toBe(3);
    expect((await store.list(app, 0, 10)).letters.map((l) => l.gamerId)).toEqual([bob, bob, `urn:uuid:${bob}`]);
  });

  it('erases a gamer whose id is the application\'s, and no one else\'s letter naming the application', async () => {
    const app = randomUUID();
    const other = randomUUID();
    const names = await lettersOf(app, app, `urn:app:${app}:gamer:${other}`);
    const store = new DeadLetterStore(await jetstreamManager(nc), jetstream(nc), names);
    expect(await store.removeOfGamer(app, app)).toBe(1);
    expect((await store.list(app, 0, 10)).letters.map((l) => l.gamerId)).toEqual([`urn:app:${app}:gamer:${other}`]);
  });
});
