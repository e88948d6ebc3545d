import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTasksStack, type TasksStack } from '../support/stack.ts';
import { byTask, World } from '../support/world.ts';

describe('tasks smoke', () => {
  let stack: TasksStack;
  beforeAll(async () => {
    stack = await startTasksStack();
  });
  afterAll(async () => stack?.close());

  it('creates, assigns, progresses, claims', async () => {
    const world = new World(stack);
    const task = await world.createTask({ targetValue: 3 });
    const ann = world.gamer('Ann');
    const assigned = await world.assign(ann, 'DAILY', 1);
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    expect(assigned.body).toHaveLength(1);
    await world.play(ann, { wins: 2 });
    await world.play(ann, { wins: 1 });
    const done = await world.waitFor(ann, byTask(task.id), (t) => t.completed);
    expect(done.progress).toBe(3);
    const claim = await stack.api('POST', `/api/v1/tasks/${done.id}/claim`, { headers: ann.auth });
    expect(claim.status, JSON.stringify(claim.body)).toBe(200);
    expect(await world.inventory(ann)).toEqual([{ inventoryItemId: task.rewards[0]!.inventoryItemId, quantity: 5 }]);
  });
});
