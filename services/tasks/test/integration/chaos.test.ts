import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { natsNames, type ApplicationTask, type GamerTask, type GamerTaskWithChildren, type StatEvent } from '@gfts/contracts';
import { buildGateway } from '@gfts/gateway/app';
import { readGatewayConfig } from '@gfts/gateway/config';
import {
  client, eventually, freePort, gamer, spawnService, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, type Gamer, type ServiceProcess, testLogLevel,
} from '@gfts/testkit';
import { mongoContainer, natsContainer, outage, startWithRetry, type StartedTestContainer } from '@gfts/testkit/containers';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it, onTestFinished } from 'vitest';

const SERVER = fileURLToPath(new URL('../../src/server.ts', import.meta.url));
const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
/** The figures (docs/operations.md, "How to run the chaos tests"). */
const EVENTS = setting('CHAOS_EVENTS', 10_000);
const GAMERS = setting('CHAOS_GAMERS', 20);
const KILLS = setting('CHAOS_KILLS', 5);
const DB_DOWN_MS = setting('CHAOS_DB_DOWN_MS', 10_000);
/** how long the events keep coming in: they are published while the chaos goes on */
const PUBLISH_MS = setting('CHAOS_PUBLISH_MS', 25_000);
/** the backlog may take long on a loaded machine; only a consumer making no progress this long ends the wait */
const STALL_MS = setting('CHAOS_STALL_MS', 60_000);
const ROUNDS = Math.ceil(EVENTS / GAMERS);

async function logsOf(container: StartedTestContainer): Promise<string> {
  const lines: string[] = [];
  const stream = await container.logs({ tail: 40 });
  await new Promise<void>((resolve) => {
    stream.on('data', (line: Buffer | string) => lines.push(String(line).trim())).on('end', resolve).on('error', resolve);
    setTimeout(resolve, 2_000);
  });
  return lines.join('\n');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The tasks service under fire, on its own NATS and database containers (published on fixed
 * host ports, so they come back at the same address): stat events keep arriving while the
 * service is killed with SIGKILL again and again, NATS is restarted and the database is
 * stopped for a while; gamers claim what they completed all along. Afterwards every total,
 * every completion and every inventory grant is exact.
 */
describe('tasks under fire', () => {
  it(`${EVENTS} events, ${KILLS} kills, a NATS restart and ${DB_DOWN_MS / 1000} s without database: every total exact`, async () => {
    const started: StartedTestContainer[] = [];
    let tasks: ServiceProcess | undefined;
    // also when the test times out (its finally never runs then): no process or container
    // outlives it (a second stop of a stopped container fails quietly)
    onTestFinished(async () => {
      tasks?.child.kill('SIGKILL');
      await Promise.allSettled(started.map((c) => c.stop({ timeout: 5_000 })));
    });
    const log: string[] = [];
    const note = (what: string) => log.push(`${new Date().toISOString()} ${what}`);
    try {
      const [mongoPort, natsPort, port] = [await freePort(), await freePort(), await freePort()];
      const mongo = await startWithRetry(() => mongoContainer(mongoPort), 'database');
      started.push(mongo);
      const nats = await startWithRetry(() => natsContainer(natsPort), 'NATS');
      started.push(nats);
      const natsUrl = `nats://127.0.0.1:${natsPort}`;
      const prefix = 'chaos';
      const env = {
        PORT: String(port), HOST: '127.0.0.1', MONGO_URL: `mongodb://127.0.0.1:${mongoPort}/tasks`, NATS_URL: natsUrl, NATS_PREFIX: prefix,
        INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: 'info', STATS_ACK_WAIT_MS: '5000', STATS_RETRY_BASE_MS: '200',
        CONSUMER_BATCH: '250', CLAIM_RECOVERY_AFTER_MS: '1000', EXPIRY_SWEEP_INTERVAL_MS: '1000',
        // every kill uses up one delivery of each event the killed process held (pulled, not
        // yet acknowledged); the default of 5 is sized for a poison event that crashes replicas,
        // and this test sends none: with 5 kills in 30 s it dead-lettered sound events (applied,
        // their acknowledgement lost to a kill) about one run in ten
        STATS_MAX_DELIVER: String(KILLS * 2 + 5),
      };
      const outputs: string[] = [];
      const start = async () => {
        tasks = spawnService(SERVER, env);
        await tasks.listening(60_000);
      };
      const kill = async () => {
        tasks!.child.kill('SIGKILL');
        outputs.push((await tasks!.exited).output);
        await start();
      };
      await start();
      const tasksUrl = `http://127.0.0.1:${port}`;
      const gateway = await buildGateway(readGatewayConfig({
        FRIENDSHIP_URL: 'http://127.0.0.1:9', TASKS_URL: tasksUrl, JWT_SECRET: TEST_JWT_SECRET,
        INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: testLogLevel(), RATE_LIMIT_MAX: '100000000', RATE_LIMIT_IN_FLIGHT_MAX: '10000',
      }));
      const api = client(await gateway.listen({ port: 0, host: '127.0.0.1' }));
      const nc = await connect({ servers: natsUrl, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
      try {
        const app = randomUUID();
        const admin = gamer(app, 'Admin', { roles: ['admin'] });
        const create = async (body: Record<string, unknown>) => {
          const response = await api<ApplicationTask>('POST', `/api/v1/${app}/tasks`, { headers: admin.auth, body });
          expect(response.status, JSON.stringify(response.body)).toBe(201);
          return response.body;
        };
        const base = { description: 'play', numberOfGames: 0, parentTaskId: null, applicationStatsId: 'points' };
        // nobody finishes it: its progress is the exact sum of a gamer's values, its games the count
        await create({ ...base, name: 'Marathon', targetValue: 1_000_000_000, family: 'lifetime', isAchievement: true, rewards: [] });
        // lifetime tasks (they never expire, whatever the clock) around what a gamer reaches:
        // values are 1..9, about 5 a game; some complete early, some late, some never
        const targets = [10, ROUNDS * 2, ROUNDS * 4, ROUNDS * 5, ROUNDS * 6, 1_000_000_000];
        const catalog = await Promise.all(targets.map((targetValue, i) => create({
          ...base, name: `Reach ${targetValue}`, targetValue, family: 'lifetime', isAchievement: false,
          rewards: [{ inventoryItemId: randomUUID(), quantity: i + 1 }, { inventoryItemId: randomUUID(), quantity: 100 * (i + 1) }],
        })));
        const players = Array.from({ length: GAMERS }, (_, i) => gamer(app, `P${i}`));
        for (const p of players) {
          const assigned = await api<GamerTask[]>('POST', '/api/v1/tasks/assign', { headers: p.auth, body: { family: 'lifetime', numberOfTasks: targets.length } });
          expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
          expect(assigned.body).toHaveLength(targets.length);
        }

        // the game servers: one event per gamer per round, spread over PUBLISH_MS; a publish
        // that fails (NATS restarting) is sent again with the same message id
        const expected = new Map(players.map((p) => [p.id, 0]));
        const js = jetstream(nc, { timeout: 5_000 });
        const subject = natsNames(prefix).statsSubject(app);
        let published = 0;
        let republished = 0;
        const publishing = (async () => {
          const t0 = Date.now();
          for (let round = 0; round < ROUNDS; round++) {
            const behind = t0 + (PUBLISH_MS * round) / ROUNDS - Date.now();
            if (behind > 0) await sleep(behind);
            await Promise.all(players.map(async (p) => {
              const value = 1 + Math.floor(Math.random() * 9);
              expected.set(p.id, expected.get(p.id)! + value);
              const e: StatEvent = { eventId: randomUUID(), applicationId: app, gamerId: p.id, gameId: randomUUID(), occurredAt: new Date().toISOString(), stats: [{ applicationStatsId: 'points', value }] };
              for (;;) {
                try {
                  await js.publish(subject, JSON.stringify(e), { msgID: e.eventId });
                  published++;
                  return;
                } catch {
                  republished++;
                  await sleep(250);
                }
              }
            }));
          }
        })();

        // the gamers: every second, claim whatever they see completed; anything may fail meanwhile
        const claimedOk = new Map<string, number>();
        let chaosOver = false;
        const claimAll = async (p: Gamer) => {
          const list = await api<GamerTaskWithChildren[]>('GET', '/api/v1/tasks?completed=true', { headers: p.auth });
          if (list.status !== 200) return;
          for (const t of list.body.filter((t) => t.completed && !t.claimed)) {
            const claim = await api('POST', `/api/v1/tasks/${t.id}/claim`, { headers: p.auth });
            if (claim.status === 200) claimedOk.set(t.id, (claimedOk.get(t.id) ?? 0) + 1);
          }
        };
        const claiming = (async () => {
          while (!chaosOver) {
            await Promise.all(players.map((p) => claimAll(p).catch(() => undefined)));
            await sleep(1_000);
          }
        })();

        const processed = async () => {
          const metrics = await (await fetch(`${tasksUrl}/metrics`)).text();
          return Number(/gfts_stats_events_processed_total\{[^}]*outcome="processed"[^}]*\} (\d+)/.exec(metrics)?.[1] ?? 0);
        };
        const settle = () => eventually(async () => (await processed()) > 0, 30_000, 20);
        const readyz = async () => (await fetch(`${tasksUrl}/readyz`, { signal: AbortSignal.timeout(5_000) })).status;

        // the chaos, one blow after the other while events keep coming
        const killsBefore = Math.ceil(KILLS / 2);
        for (let k = 0; k < killsBefore; k++) {
          await settle();
          note(`kill ${k + 1}`);
          await kill();
        }
        await settle();
        note('NATS restart');
        await outage(nats, 1_000);
        note('NATS back');
        await settle();
        note('database stopped');
        await outage(mongo, DB_DOWN_MS, async () => {
          // not ready while the database is away
          await eventually(async () => (await readyz()) === 503, DB_DOWN_MS, 100);
          note('readyz 503');
        });
        note('database started');
        // and ready again by itself once it is back
        await eventually(async () => (await readyz()) === 200, 60_000, 200);
        note('readyz 200');
        for (let k = killsBefore; k < KILLS; k++) {
          await settle();
          note(`kill ${k + 1}`);
          await kill();
        }
        await publishing;
        note(`published ${published} (${republished} publish retries)`);

        // every event counted exactly once: the achievement's total and games
        const totals = async () => Promise.all(players.map(async (p) => {
          const m = (await api<GamerTaskWithChildren[]>('GET', '/api/v1/achievements', { headers: p.auth })).body[0];
          return { gamer: p.name, progress: m?.progress, games: m?.gamesPlayed };
        }));
        const want = players.map((p) => ({ gamer: p.name, progress: expected.get(p.id)!, games: ROUNDS }));
        // wait until every total is reached, for as long as the consumer keeps settling events
        // (its acknowledgement floor or backlog moves); then compare exactly
        const names = natsNames(prefix);
        const consumers = (await jetstreamManager(nc)).consumers;
        const progressMark = async () => {
          const info = await consumers.info(names.statsStream, names.statsConsumer).catch(() => undefined);
          return info ? `${info.ack_floor.stream_seq} ${info.num_pending} ${info.num_ack_pending}` : 'unknown';
        };
        const reached = async () => (await totals()).every((t, i) => t.progress! >= want[i]!.progress && t.games! >= ROUNDS);
        let mark = await progressMark();
        let lastProgress = Date.now();
        while (!(await reached().catch(() => false)) && Date.now() - lastProgress < STALL_MS) {
          await sleep(1_000);
          const now = await progressMark();
          if (now !== mark) [mark, lastProgress] = [now, Date.now()];
        }
        expect(await totals()).toEqual(want);
        note('totals exact');
        chaosOver = true;
        await claiming;
        note(`claimed during the chaos: ${claimedOk.size}`);

        // claims left (or interrupted by a kill) are finished now; then every completed task is
        // claimed once and the inventory holds exactly the rewards of the tasks that completed
        const byTaskId = new Map(catalog.map((t) => [t.id, t]));
        for (const p of players) {
          const total = expected.get(p.id)!;
          const list = await eventually(async () => {
            await claimAll(p);
            const response = await api<GamerTaskWithChildren[]>('GET', '/api/v1/tasks', { headers: p.auth });
            return response.status === 200 && response.body.every((t) => t.claimed === t.completed) ? response.body : undefined;
          }, 30_000, 250);
          expect(list).toHaveLength(targets.length);
          const want = new Map<string, number>();
          for (const t of list) {
            const entry = byTaskId.get(t.task.id)!;
            expect({ task: entry.name, completed: t.completed }).toEqual({ task: entry.name, completed: total >= entry.targetValue });
            if (t.completed) {
              expect(t.progress).toBeGreaterThanOrEqual(entry.targetValue);
              for (const r of entry.rewards) want.set(r.inventoryItemId, (want.get(r.inventoryItemId) ?? 0) + r.quantity);
            } else expect(t.progress).toBe(total);
          }
          const inventory = await api<{ inventoryItemId: string; quantity: number }[]>('GET', '/api/v1/inventory', { headers: p.auth });
          expect(inventory.status).toBe(200);
          const have = Object.fromEntries(inventory.body.map((i) => [i.inventoryItemId, i.quantity]));
          expect(have).toEqual(Object.fromEntries(want));
        }
        // a claim answered 200 twice would be a double grant the ledger hid
        expect([...claimedOk.values()].filter((n) => n > 1)).toEqual([]);
        // and nothing was set aside on the way
        const dlq = await (await jetstreamManager(nc)).streams.info(names.statsDeadLetterStream);
        expect(dlq.state.messages).toBe(0);
      } catch (error) {
        // where the events stand, and the warnings and errors of every tasks process, in order
        const names = natsNames(prefix);
        const jsm = await jetstreamManager(nc, { timeout: 5_000 }).catch(() => undefined);
        const consumer = await jsm?.consumers.info(names.statsStream, names.statsConsumer).catch(String);
        const dlq = await jsm?.streams.info(names.statsDeadLetterStream).catch(String);
        const metrics = await fetch(`http://127.0.0.1:${env.PORT}/metrics`).then(async (r) => (await r.text()).split('\n').filter((l) => l.startsWith('gfts_stats')).join('\n')).catch(String);
        const ready = await fetch(`http://127.0.0.1:${env.PORT}/readyz`).then(async (r) => `${r.status} ${await r.text()}`).catch(String);
        console.error(`readyz ${ready}; store logs:\n${await logsOf(mongo)}`);
        if (process.env.CHAOS_HOLD_MS) await sleep(Number(process.env.CHAOS_HOLD_MS));
        console.error(JSON.stringify({ consumer: typeof consumer === 'object' ? { ...consumer, config: undefined } : consumer, dlq: typeof dlq === 'object' ? dlq.state : dlq }, null, 1), metrics);

        const warnings = [...outputs, tasks?.output() ?? ''].map((o) => o.split('\n').filter((line) => !/"level":[123]\d/.test(line)).join('\n'));
        console.error(`${log.join('\n')}\n--- tasks warnings ---\n${warnings.join('\n--- restart ---\n').slice(-30_000)}`);
        throw error;
      } finally {
        tasks?.child.kill('SIGKILL');
        await nc.close().catch(() => undefined);
        await gateway.close();
      }
    } finally {
      tasks?.child.kill('SIGKILL');
      await Promise.allSettled(started.map((c) => c.stop({ timeout: 5_000 })));
    }
  }, Math.max(300_000, EVENTS * 60));
});
