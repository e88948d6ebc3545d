import { randomUUID } from 'node:crypto';
import { natsNames, presenceBeatKey, presenceHoldKey } from '@gfts/contracts';
import { connectNats } from '@gfts/platform';
import { composeNatsPassword, eventually, infra, interceptRequests, natsPrefix, startComposeNats, type ConfiguredNats } from '@gfts/testkit';
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presenceHolder } from '../../src/presence/holder.ts';

describe('presence holder', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connectNats(infra().natsUrl, 'presence-holder-test', { info: () => undefined, warn: () => undefined, error: () => undefined });
  });
  afterAll(async () => nc?.close());

  /** A prefix of its own with the bucket as the friendship service makes it (`bucket` makes it again), and a log the test reads. */
  async function outageSetup() {
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    const bucket = () => new Kvm(jetstream(nc)).create(names.presenceBucket, { history: 1, storage: StorageType.Memory, allow_direct: true, markerTTL: 5_000 });
    await bucket();
    const said: string[] = [];
    const log = { info: (_o: unknown, msg: string) => void said.push(msg), warn: (_o: unknown, msg: string) => void said.push(msg) };
    const count = (msg: string) => said.filter((m) => m === msg).length;
    return { prefix, names, bucket, jsm: await jetstreamManager(nc), log: log as never, count };
  }

  it('says when its writes fail and when they go through again, for every outage, not only the first', async () => {
    const { prefix, names, bucket, jsm, log, count } = await outageSetup();
    const holder = presenceHolder({ nc, prefix, holderId: randomUUID(), refreshMs: 100, maxInFlight: 16, log });
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

  it('takes the late answer of a write from before an outage for no end of it', async () => {
    const { prefix, names, bucket, jsm, log, count } = await outageSetup();
    const holderId = randomUUID();
    const late = { applicationId: randomUUID(), gamerId: randomUUID() };
    const lateSubject = `$KV.${names.presenceBucket}.${presenceHoldKey(holderId, late.applicationId, late.gamerId)}`;
    // this gamer's put lands, and its answer is held until the outage has begun
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    const faulty = interceptRequests(nc, async (subject, send) => {
      if (subject !== lateSubject || held) return send();
      held = true;
      const answer = await send();
      await gate;
      return answer;
    });
    const holder = presenceHolder({ nc: faulty, prefix, holderId, refreshMs: 100, maxInFlight: 16, log });
    try {
      holder.held({ applicationId: randomUUID(), gamerId: randomUUID() });
      await eventually(async () => count('presence of connected gamers recorded') === 1);
      holder.held(late);
      await eventually(async () => held);
      await jsm.streams.delete(names.presenceStream);
      await eventually(async () => count('presence not written; retried at the next heartbeat') === 1);
      // the put from before the outage answers now: it went through, and says nothing of now
      release();
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(count('presence written again')).toBe(0);
      await bucket();
      await eventually(async () => count('presence written again') === 1);
    } finally {
      release();
      await holder.close();
    }
    expect(count('presence not written; retried at the next heartbeat')).toBe(1);
  });

  it('takes a heartbeat whose answer was lost for its own, not for a purge, and still deletes a gamer let go meanwhile', async () => {
    for (const beats of [['lost'], ['lost', 'unsent']] as const) {
      const prefix = natsPrefix();
      const kv = await new Kvm(jetstream(nc)).create(natsNames(prefix).presenceBucket, { history: 1, storage: StorageType.Memory, allow_direct: true, markerTTL: 5_000 });
      const said = await lostHeartbeatAnswer({ writer: nc, kv, prefix, beats: [...beats] });
      expect({ beats, said: said.filter((m) => m.includes('purged')) }).toEqual({ beats, said: [] });
    }
  });
});

describe('presence holder closing', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connectNats(infra().natsUrl, 'presence-holder-close-test', { info: () => undefined, warn: () => undefined, error: () => undefined });
  });
  afterAll(async () => nc?.close());

  it('writes no heartbeat after its close, even when one under way finds its key purged', async () => {
    const prefix = natsPrefix();
    const names = natsNames(prefix);
    const kv = await new Kvm(jetstream(nc)).create(names.presenceBucket, { history: 1, storage: StorageType.Memory, allow_direct: true, markerTTL: 5_000 });
    const holderId = randomUUID();
    const beatKey = presenceBeatKey(holderId);
    const beatSubject = `$KV.${names.presenceBucket}.${beatKey}`;
    // the heartbeat's answers wait while `held` is set
    let held: Promise<void> | undefined;
    let reachedHeld: () => void = () => undefined;
    const faulty = interceptRequests(nc, async (subject, send) => {
      const answer = await send();
      if (subject === beatSubject && held) {
        reachedHeld();
        await held;
      }
      return answer;
    });
    const holder = presenceHolder({ nc: faulty, prefix, holderId, refreshMs: 200, maxInFlight: 16, log: { info: () => undefined, warn: () => undefined } as never });
    await eventually(async () => (await kv.get(beatKey))?.operation === 'PUT');
    // a friendship replica takes this one for dead and purges it; the next beat's compare-and-set
    // is refused, and its answer held until the close has begun
    let release!: () => void;
    held = new Promise<void>((resolve) => (release = resolve));
    const beatHeld = new Promise<void>((resolve) => (reachedHeld = resolve));
    await kv.purge(beatKey);
    await beatHeld;
    const closing = holder.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    held = undefined;
    release();
    await closing;
    await new Promise((resolve) => setTimeout(resolve, 500));
    // before: the refused beat took the key for purged and wrote the heartbeat again, after the close
    expect((await kv.get(beatKey))?.operation).not.toBe('PUT');
  });
});

describe('presence holder under the notifications NATS user', () => {
  let server: ConfiguredNats;
  let owner: NatsConnection;
  let writer: NatsConnection;
  const refused: string[] = [];
  beforeAll(async () => {
    server = await startComposeNats();
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    owner = await connectNats(server.url, 'friendship', quiet, { user: 'friendship', password: composeNatsPassword('NATS_FRIENDSHIP_PASSWORD') });
    writer = await connectNats(server.url, 'notifications', quiet, { user: 'notifications', password: composeNatsPassword('NATS_NOTIFICATIONS_PASSWORD') });
    void (async () => {
      for await (const status of writer.status()) if (status.type === 'error') refused.push(String(status.error));
    })();
  });
  afterAll(async () => {
    await writer?.close();
    await owner?.close();
    await server?.stop();
  });

  it('reads its heartbeat back after a lost answer (the user may), and goes on without a rewrite', async () => {
    // the bucket as the friendship service makes it, under its own user; read here as notifications may
    await new Kvm(jetstream(owner)).create(natsNames('gfts').presenceBucket, { history: 1, storage: StorageType.Memory, allow_direct: true, markerTTL: 5_000 });
    const kv = await new Kvm(jetstream(writer)).open(natsNames('gfts').presenceBucket, { allow_direct: true });
    const said = await lostHeartbeatAnswer({ writer, kv, prefix: 'gfts', beats: ['lost'] });
    expect(said.filter((m) => m.includes('purged'))).toEqual([]);
    expect(refused.filter((e) => /permission/i.test(e))).toEqual([]);
  });
});

/**
 * A notifications replica holding one gamer over `writer`, whose client hears two subjects
 * wrong (the server is real): the gamer's deletes fail before they leave, twice, and the
 * heartbeats go as `beats` says, one per interval ('lost': it lands, its answer is lost, a
 * timeout; 'unsent': it fails before it leaves). Let go meanwhile, the gamer's key must still
 * leave the bucket. Answers what the replica logged.
 */
async function lostHeartbeatAnswer({ writer, kv, prefix, beats }: { writer: NatsConnection; kv: KV; prefix: string; beats: ('lost' | 'unsent')[] }): Promise<string[]> {
  const names = natsNames(prefix);
  const holderId = randomUUID();
  const gamer = { applicationId: randomUUID(), gamerId: randomUUID() };
  const beatSubject = `$KV.${names.presenceBucket}.${presenceBeatKey(holderId)}`;
  const gamerKey = presenceHoldKey(holderId, gamer.applicationId, gamer.gamerId);
  const gamerSubject = `$KV.${names.presenceBucket}.${gamerKey}`;
  const faults = { gamerFailures: 0, beats: [] as ('lost' | 'unsent')[], armed: false, beatsAnsweredAfter: 0 };
  const faulty = interceptRequests(writer, async (subject, send) => {
    if (subject === gamerSubject && faults.gamerFailures > 0) {
      faults.gamerFailures--;
      throw new Error('injected: the delete did not leave');
    }
    const beat = subject === beatSubject ? faults.beats.shift() : undefined;
    if (beat === 'unsent') throw new Error('injected: the heartbeat did not leave');
    const answer = await send();
    if (beat === 'lost') throw new Error('injected: the heartbeat landed, its answer was lost');
    // a heartbeat written (an answer without an error: a lost compare-and-set answers one)
    if (subject === beatSubject && faults.armed && faults.beats.length === 0 && !(JSON.parse(new TextDecoder().decode(answer.data)) as { error?: unknown }).error) faults.beatsAnsweredAfter++;
    return answer;
  });
  const said: string[] = [];
  const log = { info: (_o: unknown, msg: string) => void said.push(msg), warn: (_o: unknown, msg: string) => void said.push(msg) };
  const holder = presenceHolder({ nc: faulty, prefix, holderId, refreshMs: 200, maxInFlight: 16, log: log as never });
  try {
    holder.held(gamer);
    await eventually(async () => (await kv.get(gamerKey))?.operation === 'PUT');
    // the release and its retry at the next heartbeat fail, and the heartbeats go wrong meanwhile
    faults.gamerFailures = 2;
    faults.beats = [...beats];
    faults.armed = true;
    holder.released(gamer);
    await eventually(async () => faults.gamerFailures === 0 && faults.beats.length === 0);
    // the heartbeat after them fails its compare-and-set on its own revision, and one is
    // written again (after a rewrite, before the fix); the key goes
    await eventually(async () => faults.beatsAnsweredAfter > 0, 5_000);
    await eventually(async () => (await kv.get(gamerKey))?.operation !== 'PUT', 5_000);
  } finally {
    await holder.close();
  }
  return said;
}
