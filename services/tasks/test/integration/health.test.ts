import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTasksStack, type TasksStack } from '../support/stack.ts';
import { byTask, World } from '../support/world.ts';

describe('tasks service', () => {
  let stack: TasksStack;
  beforeAll(async () => {
    stack = await startTasksStack();
  });
  afterAll(async () => stack?.close());

  it('is ready once MongoDB and NATS answer, and exposes its metrics', async () => {
    const ready = await fetch(`${stack.tasksUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { mongodb: 'ok', nats: 'ok' } });
    const metrics = await (await fetch(`${stack.tasksUrl}/metrics`)).text();
    for (const name of ['gfts_stats_events_processed_total', 'gfts_stats_consumer_redelivered_total', 'gfts_stats_dead_letter_total', 'gfts_stats_consumer_pending', 'gfts_task_claims_total', 'gfts_inventory_grants_total']) {
      expect(metrics).toContain(name);
    }
  });

  it('refuses a request that reaches it without the gateway', async () => {
    const response = await fetch(`${stack.tasksUrl}/api/v1/tasks`, { headers: { 'x-gfts-identity': 'forged' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });

  it('runs the whole loop through the gateway: catalog, assign, stats, progress, claim, inventory', async () => {
    const world = new World(stack);
    const task = await world.createTask({ targetValue: 3 });
    const ann = world.gamer('Ann');
    const assigned = await world.assign(ann, 'DAILY', 1);
    expect(assigned.status).toBe(200);
    await world.play(ann, { wins: 2 });
    await world.play(ann, { wins: 1 });
    const done = await world.waitFor(ann, byTask(task.id), (t) => t.completed);
    expect(done.progress).toBe(3);
    const claim = await stack.api('POST', `/api/v1/tasks/${done.id}/claim`, { headers: ann.auth });
    expect(claim.status).toBe(200);
    expect(await world.inventory(ann)).toEqual([{ inventoryItemId: task.rewards[0]!.inventoryItemId, quantity: 5 }]);
  });
});
