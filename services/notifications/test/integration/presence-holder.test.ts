import { randomUUID } from 'node:crypto';
import { natsNames, presenceBeatKey, presenceHoldKey } from '@gfts/contracts';
import { connectNats } from '@gfts/platform';
import { eventually, infra, natsPrefix } from '@gfts/testkit';
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presenceHolder } from '../../src/presence/holder.ts';

describe('presence holder', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connectNats(infra().natsUrl, 'presence-holder-test', { info: () => undefined, warn: () => undefined, error: () => undefined });
  });
  afterAll(async () => nc?.close());

  it('says when its writes fail and when they go through again, for every outage, not only the first', async () => {
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    // the bucket as the friendship service makes it
    const bucket = () => new Kvm(jetstream(nc)).create(names.presenceBucket, { history: 1, storage: StorageType.Memory, allow_direct: true, markerTTL: 5_000 });
    await bucket();
    const jsm = await jetstreamManager(nc);
    const said: string[] = [];
    const log = { info: (_o: unknown, msg: string) => void said.push(msg), warn: (_o: unknown, msg: string) => void said.push(msg) };
    const holder = presenceHolder({ nc, prefix, holderId: randomUUID(), refreshMs: 100, maxInFlight: 16, log: log as never });
    const count = (msg: string) => said.filter((m) => m === msg).length;
    try {
      holder.held({ applicationId: randomUUID(), gamerId: randomUUID() });
      await eventually(async () => count('presence of connected gamers recorded') === 1);
      for (let outage = 1; outage <= 2; outage++) {
        // the bucket is gone (NATS lost its memory stream), then back
        await jsm.streams.delete(names.presenceStream);
        await eventually(async () => count('presence not written; retried at the next heartbeat') === outage);
        await bucket();
        await eventually(async () => count('presence written again') === outage);
      }
    } finally {
      await holder.close();
    }
    expect(count('presence not written; retried at the next heartbeat')).toBe(2);
  });

  it('takes a heartbeat whose answer was lost for its own, not for a purge, and still deletes a gamer let go meanwhile', async () => {
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    const kv = await new Kvm(jetstream(nc)).create(names.presenceBucket, { history: 1, storage: StorageType.Memory, allow_direct: true, markerTTL: 5_000 });
    const holderId = randomUUID();
    const gamer = { applicationId: randomUUID(), gamerId: randomUUID() };
    const beatSubject = `$KV.${names.presenceBucket}.${presenceBeatKey(holderId)}`;
    const gamerSubject = `$KV.${names.presenceBucket}.${presenceHoldKey(holderId, gamer.applicationId, gamer.gamerId)}`;
    // the server is real; what the client hears of two subjects is not: the gamer's deletes
    // fail before they leave, and one heartbeat lands while its answer is lost (a timeout)
    const faults = { gamerFailures: 0, beatAnswersLost: 0 };
    const faulty = new Proxy(nc, {
      get(target, prop) {
        if (prop === 'request') {
          return async (subject: string, data: Uint8Array, opts: object) => {
            if (subject === gamerSubject && faults.gamerFailures > 0) {
              faults.gamerFailures--;
              throw new Error('injected: the delete did not leave');
            }
            const answer = await target.request(subject, data, opts as never);
            if (subject === beatSubject && faults.beatAnswersLost > 0) {
              faults.beatAnswersLost--;
              throw new Error('injected: the heartbeat landed, its answer was lost');
            }
            return answer;
          };
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const said: string[] = [];
    const log = { info: (_o: unknown, msg: string) => void said.push(msg), warn: (_o: unknown, msg: string) => void said.push(msg) };
    const holder = presenceHolder({ nc: faulty, prefix, holderId, refreshMs: 200, maxInFlight: 16, log: log as never });
    const gamerKey = presenceHoldKey(holderId, gamer.applicationId, gamer.gamerId);
    try {
      holder.held(gamer);
      await eventually(async () => (await kv.get(gamerKey))?.operation === 'PUT');
      // the release and its retry at the next heartbeat fail, and that heartbeat's answer is lost
      faults.gamerFailures = 2;
      faults.beatAnswersLost = 1;
      holder.released(gamer);
      await eventually(async () => faults.gamerFailures === 0 && faults.beatAnswersLost === 0);
      // the heartbeat after it fails its compare-and-set on its own revision; the key goes
      await eventually(async () => (await kv.get(gamerKey))?.operation !== 'PUT', 5_000);
      expect(said).not.toContain('presence of this replica was purged; writing it again');
    } finally {
      await holder.close();
    }
  });
});
