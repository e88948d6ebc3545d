import { countStoreCommands, infra, uniqueSuffix, type Gamer, type StoreCommandCounter } from '@gfts/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSIGN_ROUND_MAX } from '../../src/assign-service.ts';
import { startTasksStack, untilAcknowledged, type TasksStack } from '../support/stack.ts';
import { World } from '../support/world.ts';

/** Collections the stat pipeline writes and reads; the service's periodic sweeps use others or are not due. */
const PIPELINE = ['gamer_progress', 'processed_events', 'gamer_tasks', 'achievement_stats', 'achievement_unlocks'];
const HUGE = 1_000_000_000;

/*
 * A batch of stat events costs the same few store commands however many events and gamers it
 * holds (issue #10 item 5: one read and one bulk write per collection, dedupe without a round
 * trip per event; docs/tasks.md "Batches"), counted on the wire between the service and its
 * store. A change of these numbers is a change of the pipeline's cost: make it on purpose.
 */
describe('store round trips per stat batch', () => {
  let counter: StoreCommandCounter;
  let stack: TasksStack;
  let world: World;
  let players: Gamer[];

  beforeAll(async () => {
    counter = await countStoreCommands(infra().mongoUrl);
    // one lane, and a batch that waits a second for its events: each burst below is one batch
    stack = await startTasksStack({ MONGO_URL: counter.url(`tasks_${uniqueSuffix()}`), CONSUMER_LANES: '1', CONSUMER_BATCH: '500', CONSUMER_BATCH_WAIT_MS: '1000' });
    world = new World(stack);
    // a task and an achievement that never complete: the batches below only add progress
    await world.createTask({ name: 'Score forever', family: 'lifetime', targetValue: HUGE, applicationStatsId: 'score' });
    await world.createTask({ name: 'Score legend', family: 'lifetime', isAchievement: true, targetValue: HUGE, applicationStatsId: 'score' });
    players = [];
    for (let i = 0; i < 10; i++) {
      const player = world.gamer(`P${i}`);
      expect((await world.assign(player, 'lifetime', 1)).status).toBe(200);
      players.push(player);
    }
    // a first event each tracks the achievement and warms the catalog cache
    await burst(players.length);
  });
  afterAll(async () => {
    await stack?.close();
    await counter?.close();
  });

  /** Publishes `events` events over the players at once and waits until the consumer acknowledged the whole stream (asked of NATS, not the store). */
  async function burst(events: number): Promise<void> {
    await Promise.all(Array.from({ length: events }, (_, i) => world.publish(world.event(players[i % players.length]!, { score: 1 }))));
    await untilAcknowledged(stack, undefined, 20_000);
  }

  async function pipelineCommandsOf(events: number): Promise<Record<string, number>> {
    const commands = await counter.during(() => burst(events));
    return Object.fromEntries(Object.entries(commands).filter(([key]) => PIPELINE.includes(key.split(' ')[1] ?? '')));
  }

  it('reads the gamers\' progress and the processed ids once, writes the progress and the processed records once, for 10 events or 50', async () => {
    const oneBatch = { 'find gamer_progress': 1, 'find processed_events': 1, 'insert processed_events': 1, 'update gamer_progress': 1 };
    expect(await pipelineCommandsOf(10)).toEqual(oneBatch);
    expect(await pipelineCommandsOf(50)).toEqual(oneBatch);
    // and the events all counted: 1 + 1 + 5 each
    const progress = (await world.tasks(players[0]!))[0]!;
    expect({ progress: progress.progress, games: progress.gamesPlayed }).toEqual({ progress: 7, games: 7 });
  });

  it(`writes a seasonal assign of more tasks than ${ASSIGN_ROUND_MAX} in rounds of at most that many trees`, async () => {
    const seasonal = ASSIGN_ROUND_MAX * 2 + 10;
    for (let i = 0; i < seasonal; i++) await world.createTask({ name: `Season ${i}`, family: 'seasonal', targetValue: 10, applicationStatsId: 'score' });
    const gamer = world.gamer('Seasoned');
    counter.take();
    const assigned = await world.assign(gamer, 'seasonal', 1);
    const commands = counter.take();
    expect(assigned.status).toBe(200);
    expect(assigned.body).toHaveLength(seasonal);
    // each round's progress entries go in a bulk write of their own (the first round's, on a
    // gamer with no progress document yet, one more): three rounds, where before all 110 went at once
    expect(commands['update gamer_progress']).toBe(Math.ceil(seasonal / ASSIGN_ROUND_MAX) + 1);
    expect(commands['insert gamer_tasks']).toBe(seasonal);
  });
});
