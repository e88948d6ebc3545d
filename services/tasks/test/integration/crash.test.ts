import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createApiClient } from '@gfts/client';
import { natsNames, type StatEvent } from '@gfts/contracts';
import { buildGateway } from '@gfts/gateway/app';
import { readGatewayConfig } from '@gfts/gateway/config';
import {
  databaseUrl, eventually, freePort, gamer, infra, listen, natsPrefix, spawnService,
  TEST_INTERNAL_SECRET, TEST_JWT_SECRET, type ServiceProcess, testLogLevel,
} from '@gfts/testkit';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';

const SERVER = fileURLToPath(new URL('../../src/server.ts', import.meta.url));
const GAMERS = 20;
const EVENTS_PER_GAMER = 150;
const KILLS = 3;

const processedSoFar = async (url: string) => {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  return Number(/gfts_stats_events_processed_total\{[^}]*outcome="processed"[^}]*\} (\d+)/.exec(metrics)?.[1] ?? 0);
};

/**
 * The tasks service as a real process, killed with SIGKILL while it works through a backlog
 * of stat events in batches (so, almost surely, between a batch's write and its
 * acknowledgement), again and again: afterwards every gamer's total is exact.
 */
describe('tasks process killed mid-batch', () => {
  it(`counts every event exactly once across ${KILLS} kills`, async () => {
    const { mongoUrl, natsUrl } = infra();
    const prefix = natsPrefix();
    const port = await freePort();
    const env = {
      PORT: String(port), HOST: '127.0.0.1', MONGO_URL: databaseUrl(mongoUrl, 'tasks'), NATS_URL: natsUrl, NATS_PREFIX: prefix,
      INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: 'info', STATS_ACK_WAIT_MS: '2000', CONSUMER_BATCH: '100',
    };
    let tasks: ServiceProcess = spawnService(SERVER, env);
    const tasksUrl = await tasks.listening();
    const gateway = await buildGateway(readGatewayConfig({
      FRIENDSHIP_URL: 'http://127.0.0.1:9', TASKS_URL: tasksUrl, JWT_SECRET: TEST_JWT_SECRET,
      INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: testLogLevel(), RATE_LIMIT_MAX: '1000000', RATE_LIMIT_IN_FLIGHT_MAX: '10000',
    }));
    const gatewayUrl = await listen(gateway);
    const as = (who: { token: string }) => createApiClient({ baseUrl: gatewayUrl, token: who.token });
    const nc = await connect({ servers: natsUrl });
    try {
      const app = randomUUID();
      const admin = gamer(app, 'Admin', { roles: ['admin'] });
      // an achievement nobody can finish: its progress is the exact sum of the values seen
      const created = await as(admin).POST('/api/v1/{applicationId}/tasks', {
        params: { path: { applicationId: app } },
        body: { name: 'Marathon', description: 'play', targetValue: 1_000_000_000, numberOfGames: 0, family: 'lifetime', applicationStatsId: 'points', isAchievement: true, rewards: [] },
      });
      expect(created.response.status, JSON.stringify(created.error)).toBe(201);

      const players = Array.from({ length: GAMERS }, (_, i) => gamer(app, `P${i}`));
      const expected = new Map(players.map((p) => [p.id, 0]));
      const js = jetstream(nc);
      const subject = natsNames(prefix).statsSubject(app);
      let rounds = 0;
      const publishRounds = async (n: number) => {
        for (let round = 0; round < n; round++) {
          await Promise.all(players.map((p) => {
            const value = 1 + Math.floor(Math.random() * 9);
            expected.set(p.id, expected.get(p.id)! + value);
            const e: StatEvent = { eventId: randomUUID(), applicationId: app, gamerId: p.id, gameId: randomUUID(), occurredAt: new Date().toISOString(), stats: [{ applicationStatsId: 'points', value }] };
            return js.publish(subject, JSON.stringify(e), { msgID: e.eventId });
          }));
        }
        rounds += n;
      };
      await publishRounds(EVENTS_PER_GAMER);

      // each kill lands in the backlog, with a batch in hand: before each, the backlog is
      // topped up to 3,000 events not yet delivered (in batches of 100 they outlast the
      // moment to the kill, however fast the consumer: a faster store once drained 3,000
      // before the third kill)
      const jsm = await jetstreamManager(nc);
      const names = natsNames(prefix);
      for (let kill = 1; kill <= KILLS; kill++) {
        const { num_pending: undelivered } = await jsm.consumers.info(names.statsStream, names.statsConsumer);
        if (undelivered < GAMERS * EVENTS_PER_GAMER) await publishRounds(EVENTS_PER_GAMER);
        // let it get into the backlog, then kill it where it stands
        await eventually(async () => (await processedSoFar(tasksUrl)) > 0, 30_000, 10);
        tasks.child.kill('SIGKILL');
        await tasks.exited;
        // nobody consumes now: events delivered and not acknowledged were in its hands
        const left = await jsm.consumers.info(names.statsStream, names.statsConsumer);
        expect(left.num_ack_pending, `events in hand at kill ${kill}`).toBeGreaterThan(0);
        tasks = spawnService(SERVER, env);
        await tasks.listening();
      }

      for (const player of players) {
        const want = expected.get(player.id)!;
        const progress = await eventually(async () => {
          const { data } = await as(player).GET('/api/v1/achievements');
          const value = data?.[0]?.progress ?? -1;
          return value >= want ? value : undefined;
        }, 60_000, 200);
        // exactly: more would mean an event counted twice across a kill
        expect(progress).toBe(want);
      }
      const games = await as(players[0]!).GET('/api/v1/achievements');
      expect(games.data![0]!.gamesPlayed).toBe(rounds);
    } finally {
      tasks.child.kill('SIGKILL');
      await nc.close();
      await gateway.close();
    }
  }, 180_000);
});
