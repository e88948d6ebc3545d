import { IDENTITY_HEADER, natsNames, Role, STAT_DEAD_LETTER_MAX_BYTES, STAT_EVENT_MAX_BYTES, TaskLimits, type NatsNames, type StatEvent } from '@gfts/contracts';
import { createIdentitySigner, ensureGamersStream } from '@gfts/platform';
import { eventually, infra, natsPrefix, TEST_INTERNAL_SECRET } from '@gfts/testkit';
import { DiscardPolicy, jetstream, jetstreamManager, JetStreamApiError, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDeadLetter } from '../../src/stats/dead-letters.ts';
import { ensureStatsTopology, type StreamSettings } from '../../src/stats/stream.ts';
import { startTasksStack, type TasksStack } from '../support/stack.ts';
import { World } from '../support/world.ts';

const MIB = 1_048_576;
const DAY_NS = 86_400_000 * 1_000_000;
const settings = (over: Partial<StreamSettings> = {}): StreamSettings => ({
  replicas: 1, maxAgeMs: 7 * 86_400_000, maxBytes: 8 * MIB, deadLetterMaxBytes: 4 * MIB, duplicateWindowMs: 120_000, maxDeliver: 5, ackWaitMs: 30_000, ...over,
});

/** The schema's largest event in ASCII (about 17.7 KB as JSON): every string at its bound. */
function largestAsciiEvent(world: World): StatEvent {
  const event = world.event(randomUUID(), {});
  return {
    ...event,
    gameId: 'g'.repeat(TaskLimits.GAME_ID_MAX),
    stats: Array.from({ length: TaskLimits.STATS_PER_EVENT_MAX }, (_, i) => ({ applicationStatsId: `${i}`.padEnd(TaskLimits.STAT_ID_MAX, 's'), value: TaskLimits.STAT_VALUE_MAX })),
  };
}

/** JSON with everything but ASCII escaped (Python's json.dumps by default): 12 bytes per character outside the BMP. */
const asciiJson = (value: unknown) => JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

describe('bounds of the streams', () => {
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  beforeAll(async () => {
    nc = await connect({ servers: infra().natsUrl });
    jsm = await jetstreamManager(nc);
  });
  afterAll(async () => nc?.drain());

  it('creates the stats and dead-letter streams with max_bytes, max_msg_size and discard Old, and GAMERS with discard New', async () => {
    const names = natsNames(natsPrefix());
    await ensureStatsTopology(jsm, names, settings());
    await ensureGamersStream(jsm, names, { replicas: 1, maxBytes: 2 * MIB });
    const stats = (await jsm.streams.info(names.statsStream)).config;
    expect(stats).toMatchObject({ max_bytes: 8 * MIB, max_msg_size: STAT_EVENT_MAX_BYTES, discard: DiscardPolicy.Old, max_age: 7 * DAY_NS });
    const letters = (await jsm.streams.info(names.statsDeadLetterStream)).config;
    expect(letters).toMatchObject({ max_bytes: 4 * MIB, max_msg_size: STAT_DEAD_LETTER_MAX_BYTES, discard: DiscardPolicy.Old });
    const gamers = (await jsm.streams.info(names.gamersStream)).config;
    expect(gamers).toMatchObject({ max_bytes: 2 * MIB, discard: DiscardPolicy.New, max_age: 30 * DAY_NS });
  });

  it('bounds streams an earlier version made without bounds, keeping their messages', async () => {
    const names = natsNames(natsPrefix());
    // as the service created them before: no max_bytes, no max_msg_size, GAMERS discarding old
    const before = { retention: RetentionPolicy.Limits, storage: StorageType.File, discard: DiscardPolicy.Old, num_replicas: 1, max_age: 7 * DAY_NS, duplicate_window: 120_000_000_000 };
    await jsm.streams.add({ name: names.statsStream, subjects: [names.statsSubjects], ...before });
    await jsm.streams.add({ name: names.statsDeadLetterStream, subjects: [names.statsDeadLetter, names.statsDeadLetters], ...before });
    await jsm.streams.add({ name: names.gamersStream, subjects: [names.gamerErased, names.gamerErasureCompleted], ...before, max_age: 30 * DAY_NS });
    await jetstream(nc).publish(names.statsSubject(randomUUID()), '{"kept":true}');
    expect((await jsm.streams.info(names.statsStream)).config).toMatchObject({ max_bytes: -1, max_msg_size: -1 });

    await ensureStatsTopology(jsm, names, settings());
    await ensureGamersStream(jsm, names, { replicas: 1, maxBytes: 2 * MIB });

    const stats = await jsm.streams.info(names.statsStream);
    expect(stats.config).toMatchObject({ max_bytes: 8 * MIB, max_msg_size: STAT_EVENT_MAX_BYTES, discard: DiscardPolicy.Old });
    expect(stats.state.messages).toBe(1);
    expect((await jsm.streams.info(names.statsDeadLetterStream)).config).toMatchObject({ max_bytes: 4 * MIB, max_msg_size: STAT_DEAD_LETTER_MAX_BYTES });
    expect((await jsm.streams.info(names.gamersStream)).config).toMatchObject({ max_bytes: 2 * MIB, discard: DiscardPolicy.New });
  });

  it('refuses a stat message over max_msg_size, and takes the largest event however it is encoded', async () => {
    const names = natsNames(natsPrefix());
    await ensureStatsTopology(jsm, names, settings());
    const js = jetstream(nc);
    const app = randomUUID();
    const junk = new Uint8Array(STAT_EVENT_MAX_BYTES + 1).fill(0x20);
    const refused = await js.publish(names.statsSubject(app), junk).then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(JetStreamApiError);
    expect((refused as JetStreamApiError).message).toMatch(/message size exceeds maximum allowed/);
    // the largest schema-valid event, escaped as Python writes it: 160 KB
    const id = randomUUID();
    const event = { eventId: id, applicationId: app, gamerId: id, gameId: '😀'.repeat(128), occurredAt: new Date().toISOString(), stats: Array.from({ length: 100 }, () => ({ applicationStatsId: '😀'.repeat(128), value: 1e9 })) };
    const body = asciiJson(event);
    expect(body.length).toBeGreaterThan(150_000);
    await expect(js.publish(names.statsSubject(app), body, { msgID: id })).resolves.toMatchObject({ stream: names.statsStream });
    expect((await jsm.streams.info(names.statsStream)).state.messages).toBe(1);
  });

  it('drops the oldest stat events when max_bytes is reached, and keeps taking new ones', async () => {
    const names: NatsNames = natsNames(natsPrefix());
    await ensureStatsTopology(jsm, names, settings({ maxBytes: MIB }));
    const js = jetstream(nc);
    const payload = 'x'.repeat(8 * 1024);
    const published = 200; // about 1.6 MiB
    for (let i = 0; i < published; i++) await js.publish(names.statsSubject(randomUUID()), payload);
    const { state } = await jsm.streams.info(names.statsStream);
    expect(state.last_seq).toBe(published);
    expect(state.bytes).toBeLessThanOrEqual(MIB);
    expect(state.first_seq).toBeGreaterThan(1);
  });

  it('refuses a gamer event once GAMERS is full, keeping the ones it holds', async () => {
    const names = natsNames(natsPrefix());
    await ensureGamersStream(jsm, names, { replicas: 1, maxBytes: MIB });
    const js = jetstream(nc);
    const payload = 'x'.repeat(16 * 1024);
    let refused: unknown;
    for (let i = 0; i < 100 && !refused; i++) refused = await js.publish(names.gamerErased, payload, { msgID: randomUUID() }).then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(JetStreamApiError);
    expect((refused as Error).message).toMatch(/maximum bytes exceeded/);
    expect((await jsm.streams.info(names.gamersStream)).state.first_seq).toBe(1);
  });
});

describe('stat events at the size bound', () => {
  let stack: TasksStack;
  beforeAll(async () => {
    stack = await startTasksStack({ STATS_STREAM_MAX_BYTES: String(64 * MIB), STATS_DEAD_LETTER_STREAM_MAX_BYTES: String(16 * MIB), GAMERS_STREAM_MAX_BYTES: String(16 * MIB) });
  });
  afterAll(async () => stack?.close());

  it('takes the largest schema-valid event through the gateway over HTTP (over BODY_LIMIT_BYTES), and applies it', async () => {
    const world = new World(stack);
    const event = largestAsciiEvent(world);
    expect(Buffer.byteLength(JSON.stringify(event))).toBeGreaterThan(16_384);
    const response = await world.report(event);
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    expect(response.body).toMatchObject({ eventId: event.eventId, duplicate: false });
    // the same event escaped as Python writes it (any character outside the BMP: 160 KB)
    const escaped = { ...event, eventId: randomUUID(), gameId: '😀'.repeat(128), stats: event.stats.map((s) => ({ ...s, applicationStatsId: '😀'.repeat(128) })) };
    const big = await stack.api('POST', '/api/v1/stats', { headers: { ...world.server.auth, 'content-type': 'application/json' }, rawBody: asciiJson(escaped) });
    expect(big.status, JSON.stringify(big.body)).toBe(202);
    const jsm = await jetstreamManager(await stack.nats());
    await eventually(async () => {
      const info = await jsm.consumers.info(stack.names.statsStream, stack.names.statsConsumer);
      return info.num_pending === 0 && info.num_ack_pending === 0 && info.ack_floor.stream_seq >= 2 ? true : undefined;
    });
    expect((await jsm.streams.info(stack.names.statsDeadLetterStream)).state.messages).toBe(0);
  });

  it('reads a body up to the bound, at the gateway and at the service, and answers 413 only above it', async () => {
    const world = new World(stack);
    const padded = (bytes: number) => {
      const body = JSON.stringify({ ...largestAsciiEvent(world), padding: '' });
      return body.replace('"padding":""', `"padding":"${' '.repeat(bytes - body.length)}"`);
    };
    const headers = { ...world.server.auth, 'content-type': 'application/json' };
    // the service itself, as the gateway calls it (its identity assertion)
    const identity = createIdentitySigner(TEST_INTERNAL_SECRET)({ gamerId: randomUUID(), applicationId: world.app, roles: [Role.SERVER] });
    const direct = (body: string) => fetch(`${stack.tasksUrl}/api/v1/stats`, { method: 'POST', headers: { 'content-type': 'application/json', [IDENTITY_HEADER]: identity }, body });
    // just under: read, and refused for its unknown field
    const under = padded(STAT_EVENT_MAX_BYTES - 16);
    expect((await stack.api('POST', '/api/v1/stats', { headers, rawBody: under })).status).toBe(400);
    expect((await direct(under)).status).toBe(400);
    const over = padded(STAT_EVENT_MAX_BYTES + 1);
    const viaGateway = await stack.api('POST', '/api/v1/stats', { headers, rawBody: over });
    expect(viaGateway.status).toBe(413);
    // the detail states the route's own limit, in bytes
    expect(viaGateway.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', detail: `the body is over this route's limit of ${STAT_EVENT_MAX_BYTES} bytes` });
    const overDirect = await direct(over);
    expect(overDirect.status).toBe(413);
    expect(await overDirect.json()).toMatchObject({ detail: `the body is over this route's limit of ${STAT_EVENT_MAX_BYTES} bytes` });
    // other routes keep BODY_LIMIT_BYTES
    const other = await stack.api('POST', '/api/v1/tasks/assign', { headers, rawBody: JSON.stringify({ family: 'daily', numberOfTasks: 1, padding: ' '.repeat(20_000) }) });
    expect(other.status).toBe(413);
    expect(other.body).toMatchObject({ detail: expect.stringMatching(/^the body is over this route's limit of \d+ bytes$/) });
  });

  it('dead-letters a junk message whose letter escaping would make too large, its payload cut to fit', async () => {
    const world = new World(stack);
    // control bytes: 6 bytes each once the letter holds them as a JSON string
    await world.publish(String.fromCharCode(1).repeat(150_000), randomUUID());
    const jsm = await jetstreamManager(await stack.nats());
    const stored = await eventually(async () => {
      const info = await jsm.streams.info(stack.names.statsDeadLetterStream);
      return info.state.last_seq > 0 ? jsm.streams.getMessage(stack.names.statsDeadLetterStream, { seq: info.state.last_seq }) : undefined;
    }, 20_000);
    const letter = toDeadLetter(stored!.seq, stored!.data);
    expect(letter?.reason).toMatch(/^payload is not UTF-8 JSON \(payload cut to its first \d+ of 150000 characters to fit a letter\)$/);
    expect(stored!.data.length).toBeLessThanOrEqual(STAT_DEAD_LETTER_MAX_BYTES);
  });
});
