import { randomUUID } from 'node:crypto';
import { client, infra, listen, mintToken, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, type Call, testLogLevel } from '@gfts/testkit';
import { startNats } from '@gfts/testkit/containers';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildGateway } from '../../src/app.ts';
import { readGatewayConfig } from '../../src/config.ts';
import { LocalCounter } from '../../src/rate-limit/local-counter.ts';
import { connectSharedKv } from '../../src/rate-limit/nats-kv.ts';
import { SharedStore } from '../../src/rate-limit/store.ts';
import { bucketName, encodeCount } from '../../src/rate-limit/window.ts';

const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

const MAX = 5;
// Windows are aligned to the clock; a day-long one keeps each test clear of a window change.
const WINDOW_MS = '86400000';

interface Replica {
  gateway: FastifyInstance;
  url: string;
  api: Call;
}

/** One gateway replica, built in-process as the service builds it, limiting through NATS at `natsUrl`. */
async function replica(natsUrl: string, upstreamUrl: string, env: Record<string, string> = {}): Promise<Replica> {
  const gateway = await buildGateway(
    readGatewayConfig({
      FRIENDSHIP_URL: upstreamUrl,
      TASKS_URL: upstreamUrl,
      INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET,
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: testLogLevel(),
      NATS_URL: natsUrl,
      RATE_LIMIT_MAX: String(MAX),
      RATE_LIMIT_WINDOW_MS: WINDOW_MS,
      ...env,
    }),
  );
  const url = await listen(gateway);
  return { gateway, url, api: client(url) };
}

function bearer(): { authorization: string } {
  return { authorization: `Bearer ${mintToken({ app: randomUUID() })}` };
}

const FALLBACKS = 'gateway_rate_limit_fallback_total';

async function metricsOf(replica: Replica): Promise<string> {
  return (await fetch(new URL('/metrics', replica.url))).text();
}

/**
 * A replica's count of decisions taken without the shared store, for one reason; undefined
 * when it has no sample for the reason (none yet: a labelled counter shows a reason from its
 * first increment).
 */
function fallbacks(metrics: string, reason: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${FALLBACKS}{`) && l.includes(`reason="${reason}"`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

let upstream: FastifyInstance;
let upstreamUrl: string;

beforeAll(async () => {
  upstream = Fastify();
  upstream.get('/readyz', async () => ({ status: 'ok' }));
  upstream.all('/*', async () => ({ ok: true }));
  upstreamUrl = await listen(upstream);
});
afterAll(async () => {
  await upstream?.close();
});

describe('rate limits across two replicas sharing one NATS', () => {
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    // Exactness holds while the store answers in time. A loaded 2-core runner (containers,
    // parallel test files) can take longer than the production bound of 100 ms, which would
    // be a fallback, not a failure of the shared count, so these replicas allow the most.
    const patient = { RATE_LIMIT_STORE_TIMEOUT_MS: '1000' };
    a = await replica(infra().natsUrl, upstreamUrl, patient);
    b = await replica(infra().natsUrl, upstreamUrl, patient);
  });
  afterAll(async () => {
    await a?.gateway.close();
    await b?.gateway.close();
  });

  it('gives a gamer the limit in total, however the requests are spread, then 429', async () => {
    const gamer = bearer();
    const statuses = [];
    for (let i = 0; i < MAX + 3; i++) statuses.push((await (i % 2 ? a : b).api('GET', '/api/v1/tasks', { headers: gamer })).status);
    expect(statuses).toEqual([...Array<number>(MAX).fill(200), 429, 429, 429]);
  });

  it('gives exactly the limit to a burst racing on both replicas', async () => {
    const gamer = bearer();
    const burst = await Promise.all(Array.from({ length: 4 * MAX }, (_, i) => (i % 2 ? a : b).api('GET', '/api/v1/tasks', { headers: gamer })));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(MAX);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(3 * MAX);
  });

  it('answers 429 as problem+json with Retry-After and the RateLimit headers', async () => {
    const gamer = bearer();
    const first = await a.api('GET', '/api/v1/tasks', { headers: gamer });
    expect(first.headers.get('x-ratelimit-limit')).toBe(String(MAX));
    expect(first.headers.get('x-ratelimit-remaining')).toBe(String(MAX - 1));
    for (let i = 1; i < MAX; i++) await b.api('GET', '/api/v1/tasks', { headers: gamer });
    const limited = await a.api('GET', '/api/v1/tasks', { headers: gamer });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(limited.body).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(Number(WINDOW_MS) / 1000);
    expect(limited.headers.get('x-ratelimit-limit')).toBe(String(MAX));
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-ratelimit-reset')).toBe(String(retryAfter));
  });

  it('leaves other gamers their own budget', async () => {
    const spent = bearer();
    for (let i = 0; i <= MAX; i++) await a.api('GET', '/api/v1/tasks', { headers: spent });
    expect((await b.api('GET', '/api/v1/tasks', { headers: spent })).status).toBe(429);
    const other = bearer();
    for (let i = 0; i < MAX; i++) expect((await (i % 2 ? a : b).api('GET', '/api/v1/tasks', { headers: other })).status).toBe(200);
  });

  it('took every decision in the shared store', async () => {
    // requests of its own on both replicas: together they give the limit, not each of them
    const gamer = bearer();
    const statuses = [];
    for (let i = 0; i < MAX + 1; i++) statuses.push((await (i % 2 ? a : b).api('GET', '/api/v1/tasks', { headers: gamer })).status);
    expect(statuses).toEqual([...Array<number>(MAX).fill(200), 429]);
    for (const r of [a, b]) {
      const metrics = await metricsOf(r);
      // the counter is registered under this name (the NATS-less test below sees its samples),
      // so no sample for a reason is no fallback for it
      expect(metrics).toContain(`# TYPE ${FALLBACKS} counter`);
      for (const reason of ['unavailable', 'error', 'timeout']) expect(fallbacks(metrics, reason), reason).toBeUndefined();
    }
  });
});

describe('leased slots', () => {
  const LEASED_MAX = 100;
  // a window length of its own, so that the bucket's writes counted here are this test's
  const LEASED_WINDOW_MS = 86_340_000;
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    const env = { RATE_LIMIT_STORE_TIMEOUT_MS: '1000', RATE_LIMIT_MAX: String(LEASED_MAX), RATE_LIMIT_WINDOW_MS: String(LEASED_WINDOW_MS), RATE_LIMIT_LEASE_MAX: '16' };
    a = await replica(infra().natsUrl, upstreamUrl, env);
    b = await replica(infra().natsUrl, upstreamUrl, env);
  });
  afterAll(async () => {
    await a?.gateway.close();
    await b?.gateway.close();
  });

  /** Writes to the counters' bucket so far: one per compare-and-set that landed. */
  async function writes(): Promise<number> {
    const nc = await connect({ servers: infra().natsUrl });
    try {
      const info = await (await jetstreamManager(nc)).streams.info(`KV_${bucketName(LEASED_WINDOW_MS)}`);
      return info.state.last_seq;
    } finally {
      await nc.close();
    }
  }

  /** Reads of the counters' bucket (direct or stream gets) the replicas send while `run` runs. */
  async function readsDuring(run: () => Promise<void>): Promise<number> {
    const nc = await connect({ servers: infra().natsUrl });
    try {
      const stream = `KV_${bucketName(LEASED_WINDOW_MS)}`;
      let reads = 0;
      nc.subscribe(`$JS.API.DIRECT.GET.${stream}.>`, { callback: () => void reads++ });
      nc.subscribe(`$JS.API.STREAM.MSG.GET.${stream}`, { callback: () => void reads++ });
      await nc.flush();
      await run();
      await nc.flush();
      return reads;
    } finally {
      await nc.close();
    }
  }

  it('lets a busy gamer spend slots taken ahead, with a write per lease and no read of the counter', async () => {
    const gamer = bearer();
    const before = await writes();
    const reads = await readsDuring(async () => {
      for (let i = 0; i < 60; i++) expect((await a.api('GET', '/api/v1/tasks', { headers: gamer })).status).toBe(200);
    });
    // leases of 4, 8, 16, 16 slots, then 14 and 10 (a quarter of the 56 and 42 left), cover 68
    expect((await writes()) - before).toBe(6);
    // each lease is written at the revision the replica's previous one left
    expect(reads).toBe(0);
  });

  it('reads the counter again when another replica wrote it, and still gives exactly the limit', async () => {
    const gamer = bearer();
    let passed = 0;
    const reads = await readsDuring(async () => {
      // a few requests on each in turn: every lease after the first of each replica finds the other's write
      for (let i = 0; i < LEASED_MAX + 20; i++) {
        if ((await (Math.floor(i / 3) % 2 ? a : b).api('GET', '/api/v1/tasks', { headers: gamer })).status === 200) passed++;
      }
    });
    expect(reads).toBeGreaterThan(0);
    expect(passed).toBe(LEASED_MAX);
  });

  it('never lets more than the limit through a burst on both replicas, and every slot is spent in the end', async () => {
    const gamer = bearer();
    const burst = await Promise.all(Array.from({ length: 3 * LEASED_MAX }, (_, i) => (i % 2 ? a : b).api('GET', '/api/v1/tasks', { headers: gamer })));
    const passed = burst.filter((r) => r.status === 200).length;
    expect(passed).toBeLessThanOrEqual(LEASED_MAX);
    // Slots a replica leased and did not spend in the burst are spent by its next requests.
    let more = 0;
    let refusedInARow = 0;
    for (let i = 0; refusedInARow < 4; i++) {
      const status = (await (i % 2 ? a : b).api('GET', '/api/v1/tasks', { headers: gamer })).status;
      if (status === 200) {
        more++;
        refusedInARow = 0;
      } else refusedInARow++;
    }
    expect(passed + more).toBe(LEASED_MAX);
  });
});

describe('the shared store across a wall-clock step', () => {
  it('answers a request queued behind an update from the store when the clock steps forward meanwhile', async () => {
    const shared = connectSharedKv({ servers: infra().natsUrl, credentials: {}, windowMs: Number(WINDOW_MS), replicas: 1, timeoutMs: 1_000, log: quietLog });
    await shared.firstAttempt;
    const fallbacks: string[] = [];
    const store = new SharedStore({
      kv: () => shared.current(), local: new LocalCounter(1_000), timeoutMs: 1_000, pauseMs: 1_000, leaseMax: 1, leaseFirst: 1, leaseKeysMax: 1_000,
      log: quietLog, onFallback: (reason) => void fallbacks.push(reason),
    });
    const count = (key: string) => new Promise<number>((resolve) => store.incr(key, (_e, result) => resolve(result.current), Number(WINDOW_MS), 100));
    const key = `${randomUUID()}:${randomUUID()}`;
    try {
      // the first starts an update; the second waits behind it; then an NTP step of 5 s
      const first = count(key);
      const second = count(key);
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 5_000 });
      expect(await Promise.all([first, second])).toEqual([1, 2]);
      expect(fallbacks).toEqual([]);
    } finally {
      vi.useRealTimers();
      await shared.close();
    }
  });
});

describe('a rate-limit bucket NATS lost', () => {
  it('is made again, and limits are shared again, without a gateway restart', async () => {
    const nats = await startNats();
    const a = await replica(nats.url, upstreamUrl, { RATE_LIMIT_STORE_TIMEOUT_MS: '1000' });
    const b = await replica(nats.url, upstreamUrl, { RATE_LIMIT_STORE_TIMEOUT_MS: '1000' });
    const nc = await connect({ servers: nats.url });
    try {
      const jsm = await jetstreamManager(nc);
      const stream = `KV_${bucketName(Number(WINDOW_MS))}`;
      expect((await a.api('GET', '/api/v1/tasks', { headers: bearer() })).status).toBe(200);
      // as a restart loses an R1 memory stream
      await jsm.streams.delete(stream);
      // the next counter calls find it gone (limited per replica meanwhile), and it is made again
      for (let i = 0; i < 4; i++) await (i % 2 ? a : b).api('GET', '/api/v1/tasks', { headers: bearer() });
      await expect.poll(async () => (await jsm.streams.info(stream).catch(() => undefined)) !== undefined, { timeout: 10_000, interval: 100 }).toBe(true);
      // past the pause after a failure, a new gamer's budget is shared again
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const gamer = bearer();
      const statuses = [];
      for (let i = 0; i < MAX + 1; i++) statuses.push((await (i % 2 ? a : b).api('GET', '/api/v1/tasks', { headers: gamer })).status);
      expect(statuses).toEqual([...Array<number>(MAX).fill(200), 429]);
    } finally {
      await nc.close();
      await a.gateway.close();
      await b.gateway.close();
      await nats.stop();
    }
  });
});

describe('a rate-limit bucket deleted and made again by another pod', () => {
  it('is bound again by a pod whose calls never failed, which then counts from the new bucket, not from what it remembered', async () => {
    const nats = await startNats();
    // one counter update per request: every request of the gamer writes at the revision this pod remembers
    const single = { RATE_LIMIT_STORE_TIMEOUT_MS: '1000', RATE_LIMIT_LEASE_MAX: '1', RATE_LIMIT_LEASE_FIRST: '1' };
    const a = await replica(nats.url, upstreamUrl, single);
    const b = await replica(nats.url, upstreamUrl, single);
    const nc = await connect({ servers: nats.url });
    try {
      const jsm = await jetstreamManager(nc);
      const bucket = bucketName(Number(WINDOW_MS));
      const gamer = bearer();
      // a's update is the first write of the bucket: the gamer's counter at revision 1, count 1
      expect((await a.api('GET', '/api/v1/tasks', { headers: gamer })).status).toBe(200);
      const counters = [];
      for await (const k of await (await new Kvm(jetstream(nc)).open(bucket)).keys()) counters.push(k);
      expect(counters).toHaveLength(1);
      await jsm.streams.delete(`KV_${bucket}`);
      // b's next call finds it gone and makes it again; a's calls never failed
      await b.api('GET', '/api/v1/tasks', { headers: bearer() });
      await expect.poll(async () => (await jsm.streams.info(`KV_${bucket}`).catch(() => undefined)) !== undefined, { timeout: 10_000, interval: 100 }).toBe(true);
      // the new bucket's first write: the same gamer's counter, full (as other pods' requests
      // would make it), at revision 1 again, the revision a remembers
      expect(await (await new Kvm(jetstream(nc)).open(bucket)).put(counters[0]!, encodeCount(MAX))).toBe(1);
      // past b's pause after its failure, and a's rebinding
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect((await a.api('GET', '/api/v1/tasks', { headers: gamer })).status).toBe(429);
      expect(fallbacks(await metricsOf(a), 'error') ?? 0).toBe(0);
    } finally {
      await nc.close();
      await a.gateway.close();
      await b.gateway.close();
      await nats.stop();
    }
  });
});

describe('rate limits without NATS', () => {
  it('limit per replica when NATS cannot be reached at all, and say so in the metrics', async () => {
    const lonely = await replica('nats://127.0.0.1:1', upstreamUrl);
    try {
      const gamer = bearer();
      const statuses = [];
      for (let i = 0; i < MAX + 1; i++) statuses.push((await lonely.api('GET', '/api/v1/tasks', { headers: gamer })).status);
      expect(statuses).toEqual([...Array<number>(MAX).fill(200), 429]);
      // the sample a shared replica without fallbacks lacks (the test above trusts its absence)
      const metrics = await metricsOf(lonely);
      expect(metrics).toMatch(new RegExp(`^${FALLBACKS}\\{[^}]*reason="unavailable"[^}]*\\} ${MAX + 1}$`, 'm'));
      expect(fallbacks(metrics, 'unavailable')).toBe(MAX + 1);
      expect((await lonely.api('GET', '/readyz')).status).toBe(200);
    } finally {
      await lonely.gateway.close();
    }
  });

  it('keep answering when NATS stops under a running pair of replicas', async () => {
    const nats = await startNats();
    let stopped = false;
    const a = await replica(nats.url, upstreamUrl);
    const b = await replica(nats.url, upstreamUrl);
    try {
      const gamer = bearer();
      expect((await a.api('GET', '/api/v1/tasks', { headers: gamer })).status).toBe(200);
      expect((await b.api('GET', '/api/v1/tasks', { headers: gamer })).status).toBe(200);
      await nats.stop();
      stopped = true;
      // Each replica now counts alone: the budget it has seen this gamer use is its own.
      const fresh = bearer();
      const statuses = [];
      for (let i = 0; i < MAX + 1; i++) statuses.push((await a.api('GET', '/api/v1/tasks', { headers: fresh })).status);
      expect(statuses).toEqual([...Array<number>(MAX).fill(200), 429]);
      expect((await b.api('GET', '/api/v1/tasks', { headers: fresh })).status).toBe(200);
      expect((await b.api('GET', '/api/v1/tasks', { headers: gamer })).status).toBe(200);
    } finally {
      await a.gateway.close();
      await b.gateway.close();
      if (!stopped) await nats.stop();
    }
  });
});
