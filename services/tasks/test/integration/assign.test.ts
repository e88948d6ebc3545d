import type { GamerTask, Identity } from '@gfts/contracts';
import { eventually, type Gamer } from '@gfts/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import mongoose from 'mongoose';
import { expiryFor } from '../../src/domain/expiry.ts';
import { assignFingerprint } from '../../src/domain/idempotency.ts';
import { AssignService } from '../../src/assign-service.ts';
import { CatalogRepository } from '../../src/repository/catalog-repository.ts';
import { IdempotencyRepository } from '../../src/repository/event-log-repository.ts';
import { GamerProgressRepository, progressKey } from '../../src/repository/gamer-progress-repository.ts';
import { GamerTaskRepository } from '../../src/repository/gamer-task-repository.ts';
import { SettingsRepository } from '../../src/repository/settings-repository.ts';
import { openStore, type GamerProgressDoc, type Store } from '../../src/repository/store.ts';
import { startTasksStack, untilAcknowledged, type TasksStack } from '../support/stack.ts';
import { World } from '../support/world.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The assign use case in this process over `store`, with a repository swapped where a test needs a fault. */
function assignService(store: Store, swapped: { gamerTasks?: GamerTaskRepository; progress?: GamerProgressRepository } = {}): AssignService {
  const gamerTasks = new GamerTaskRepository(store);
  const progress = swapped.progress ?? new GamerProgressRepository(store, gamerTasks, 100);
  return new AssignService(new CatalogRepository(store), swapped.gamerTasks ?? gamerTasks, progress, new IdempotencyRepository(store), 5, new SettingsRepository(store), DAY_MS);
}
/** The progress repository over `store`, whose first `add` fails (the store away after an assign wrote its tasks). */
function progressFailingOnce(store: Store): GamerProgressRepository {
  let failing = true;
  return new Proxy(new GamerProgressRepository(store, new GamerTaskRepository(store), 100), {
    get: (target, prop, receiver) => (prop === 'add' && failing ? async () => { failing = false; throw new Error('store away'); } : Reflect.get(target, prop, receiver)),
  });
}
const child = (over: Record<string, unknown> = {}) => ({ name: 'Child', targetValue: 1, numberOfGames: 0, applicationStatsId: 'kills', ...over });

describe('assign and the gamer task list', () => {
  let stack: TasksStack;
  beforeAll(async () => {
    stack = await startTasksStack({ MAX_TASKS_PER_ASSIGN: '5', EXPIRY_SWEEP_INTERVAL_MS: '1000' });
  });
  afterAll(async () => stack?.close());

  /** A world with daily tasks of these names, a gamer, and the store opened in this process for `run` (closed after). */
  async function inProcess(names: string[], run: (arranged: { world: World; ann: Gamer; identity: Identity; store: Store }) => Promise<void>): Promise<void> {
    const world = new World(stack);
    await Promise.all(names.map((name) => world.createTask({ name })));
    const ann = world.gamer();
    const identity = { applicationId: world.app, gamerId: ann.id, roles: [] };
    const connection = await mongoose.createConnection(stack.mongoUrl).asPromise();
    try {
      await run({ world, ann, identity, store: openStore(connection) });
    } finally {
      await connection.close();
    }
  }

  it('a keyed assign that failed after writing tasks is retried into those tasks, not more', async () => {
    await inProcess([1, 2, 3, 4, 5].map((n) => `Daily ${n}`), async ({ world, ann, identity, store }) => {
      // the store fails once after the tasks of the first attempt are written
      const service = assignService(store, { progress: progressFailingOnce(store) });
      const request = { family: 'daily' as const, numberOfTasks: 2 };
      await expect(service.assign(identity, request, 'k1')).rejects.toThrow('store away');
      // a game comes between (the tasks were written, their progress entries not: a list adds them)
      await world.tasks(ann);
      await world.play(ann, { wins: 1 });
      await eventually(async () => (await world.tasks(ann)).every((t) => t.progress === 1));
      const retried = await service.assign(identity, request, 'k1');
      expect(retried).toHaveLength(2);
      // answered as they stand, not as first written
      expect(retried.map((t) => t.progress)).toEqual([1, 1]);
      expect((await world.tasks(ann)).map((t) => t.id).sort()).toEqual(retried.map((t) => t.id).sort());
      expect(await service.assign(identity, request, 'k1')).toEqual(retried);
    });
  });

  it('a keyed assign that failed after writing tasks is not taken over by the same key with another body', async () => {
    await inProcess([1, 2, 3, 4, 5, 6, 7].map((n) => `Daily ${n}`), async ({ world, ann, identity, store }) => {
      const service = assignService(store, { progress: progressFailingOnce(store) });
      await expect(service.assign(identity, { family: 'daily', numberOfTasks: 5 }, 'k2')).rejects.toThrow('store away');
      const written = (await world.tasks(ann)).map((t) => t.id);
      expect(written).toHaveLength(5);
      // the key was freed by the failure; another body under it is a request of its own: 2 tasks, none of the 5
      const other = await service.assign(identity, { family: 'daily', numberOfTasks: 2 }, 'k2');
      expect(other).toHaveLength(2);
      expect(other.filter((t) => written.includes(t.id))).toEqual([]);
    });
  });

  it('a key reused after its retention is a new request: the trees of its old request are not taken', async () => {
    const world = new World(stack);
    await Promise.all([1, 2, 3, 4].map((n) => world.createTask({ family: 'lifetime', name: `Life ${n}` })));
    const ann = world.gamer();
    const key = { 'idempotency-key': `kept-${randomUUID()}` };
    const first = await world.assign(ann, 'lifetime', 2, key);
    expect(first.status).toBe(200);
    const connection = await mongoose.createConnection(stack.mongoUrl).asPromise();
    try {
      const store = openStore(connection);
      // a day and a minute later: the sweep has forgotten the key (IDEMPOTENCY_KEY_RETENTION_MS,
      // 24 h), and the lifetime tasks are still held
      expect((await store.idempotencyKeys.deleteOne({ _id: `${world.app}:${ann.id}:${key['idempotency-key']}` })).deletedCount).toBe(1);
      await store.gamerTasks.updateMany({ applicationId: world.app, gamerId: ann.id }, { $set: { createdAt: new Date(Date.now() - DAY_MS - 60_000) } });
    } finally {
      await connection.close();
    }
    const again = await world.assign(ann, 'lifetime', 2, key);
    expect(again.status).toBe(200);
    const firstIds = (first.body as GamerTask[]).map((t) => t.id);
    expect((again.body as GamerTask[]).map((t) => t.id).filter((id) => firstIds.includes(id))).toEqual([]);
    expect(await world.tasks(ann)).toHaveLength(4);
  });

  it('an assign the daily reset overtakes while it writes assigns again in the new day, not tasks already expired', async () => {
    await inProcess([1, 2, 3].map((n) => `Late ${n}`), async ({ world, identity, store }) => {
      const gamerTasks = new GamerTaskRepository(store);
      const settings = new SettingsRepository(store);
      // the clock of this process only (the service runs here): 50 ms before the next reset,
      // and past it once the first tree is written
      const reset = expiryFor('daily', new Date(), null, await settings.schedule(world.app))!;
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(reset.getTime() - 50);
        let moved = false;
        const slow = new Proxy(gamerTasks, {
          get: (target, prop, receiver) => (prop === 'insertTree'
            ? async (...args: Parameters<GamerTaskRepository['insertTree']>) => {
              const inserted = await target.insertTree(...args);
              if (!moved) vi.setSystemTime(reset.getTime() + 1_000);
              moved = true;
              return inserted;
            }
            : Reflect.get(target, prop, receiver)),
        });
        const service = assignService(store, { gamerTasks: slow });
        const assigned = await service.assign(identity, { family: 'daily', numberOfTasks: 2 });
        // the race happened: the clock moved past the reset during the write
        expect(moved).toBe(true);
        expect(assigned).toHaveLength(2);
        // none of them expired when answered: they are the new day's, and the ones held now
        for (const t of assigned) expect(new Date(t.expiredAt!).getTime()).toBeGreaterThan(Date.now());
        const held = await gamerTasks.activeOf([identity], new Date());
        expect(held.map((t) => t.id).sort()).toEqual(assigned.map((t) => t.id).sort());
      } finally {
        vi.useRealTimers();
      }
    });
  });

  it('answers an array of distinct random tasks of the family with the spec\'s gamer task fields', async () => {
    const world = new World(stack);
    const daily = await Promise.all([1, 2, 3, 4].map((n) => world.createTask({ name: `Daily ${n}` })));
    await world.createTask({ family: 'weekly' });
    const ann = world.gamer();
    const before = Date.now();
    const response = await world.assign(ann, 'Daily', 2);
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(2);
    const [first] = response.body;
    expect(first).toEqual({
      id: expect.any(String),
      createdAt: expect.any(String),
      expiredAt: expiryFor('daily', new Date(before))!.toISOString(),
      progress: 0,
      gamesPlayed: 0,
      completed: false,
      claimed: false,
      task: {
        id: expect.any(String),
        applicationId: world.app,
        name: expect.any(String),
        description: 'win three games',
        applicationStatsId: 'wins',
        targetValue: 3,
        numberOfGames: 0,
        family: 'daily',
        parentTaskId: null,
        isAchievement: false,
        rewards: [{ inventoryItemId: expect.any(String), quantity: 5 }],
        children: [],
      },
    });
    expect(first).not.toHaveProperty('childTasks');
    const ids = response.body.map((t) => t.task.id);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(daily.map((d) => d.id)).toContain(id);
    // the rest: only tasks not held, then nothing left
    const more = await world.assign(ann, 'daily', 5);
    expect(more.status).toBe(200);
    expect(more.body.map((t) => t.task.id).sort()).toEqual(daily.map((d) => d.id).filter((id) => !ids.includes(id)).sort());
    const none = await world.assign(ann, 'daily', 1);
    expect(none.status).toBe(409);
    expect(none.body).toMatchObject({ code: 'NOT_ENOUGH_TASKS' });
    const list = await world.tasks(ann);
    expect(list.map((t) => t.task.id).sort()).toEqual(daily.map((d) => d.id).sort());
  });

  it('picks at random: different gamers get different tasks', async () => {
    const world = new World(stack);
    await Promise.all(Array.from({ length: 6 }, (_, n) => world.createTask({ name: `T${n}` })));
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++) seen.add((await world.assign(world.gamer(), 'daily', 1)).body[0]!.task.id);
    expect(seen.size).toBeGreaterThan(1);
  });

  it('validates family (any case) and numberOfTasks (1..the configured maximum)', async () => {
    const world = new World(stack);
    await world.createTask({ family: 'monthly' });
    const ann = world.gamer();
    const post = (body: unknown) => stack.api('POST', '/api/v1/tasks/assign', { headers: ann.auth, body });
    expect((await post({ family: 'MONTHLY', numberOfTasks: 6 })).status).toBe(400);
    const zero = await post({ family: 'monthly', numberOfTasks: 0 });
    expect(zero.status).toBe(400);
    // the number is named, not the family (a union of two shapes blamed the family first)
    const paths = (zero.body as { errors: { path: string }[] }).errors.map((e) => e.path);
    expect(paths).toContain('body/numberOfTasks');
    expect(paths).not.toContain('body/family');
    expect((await post({ family: 'monthly', numberOfTasks: 1.5 })).status).toBe(400);
    expect((await post({ family: 'monthly' })).status).toBe(400);
    expect((await post({ family: 'yearly', numberOfTasks: 1 })).status).toBe(400);
    expect((await post({ family: 7, numberOfTasks: 1 })).status).toBe(400);
    expect((await post({ family: 'monthly', numberOfTasks: 1, extra: true })).status).toBe(400);
    expect((await stack.api('POST', '/api/v1/tasks/assign', { body: { family: 'monthly', numberOfTasks: 1 } })).status).toBe(401);
    const ok = await post({ family: 'MoNtHlY', numberOfTasks: 1 });
    expect(ok.status).toBe(200);
    expect((ok.body as GamerTask[])[0]!.task.family).toBe('monthly');
  });

  it('answers 409 NOT_ENOUGH_TASKS when the family has no tasks, and never assigns achievements', async () => {
    const world = new World(stack);
    await world.createTask({ family: 'lifetime', isAchievement: true });
    const response = await world.assign(world.gamer(), 'lifetime', 1);
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'NOT_ENOUGH_TASKS' });
  });

  it('assigns every seasonal task whatever numberOfTasks is, expiring at the season end', async () => {
    const world = new World(stack);
    const seasonal = await Promise.all([1, 2, 3].map((n) => world.createTask({ name: `S${n}`, family: 'seasonal' })));
    const response = await world.assign(world.gamer(), 'seasonal', 1);
    expect(response.body.map((t) => t.task.id).sort()).toEqual(seasonal.map((s) => s.id).sort());
    expect(response.body[0]!.expiredAt).toBe(expiryFor('seasonal', new Date())!.toISOString());
    // whatever it is: 0, or past the most (until 2026-11-29 both were a 400)
    for (const numberOfTasks of [0, 500]) {
      const other = await world.assign(world.gamer(), 'seasonal', numberOfTasks);
      expect(other.status, String(numberOfTasks)).toBe(200);
      expect(other.body).toHaveLength(3);
    }
  });

  it('gives weekly, monthly and lifetime tasks their expiry', async () => {
    const world = new World(stack);
    for (const family of ['weekly', 'monthly', 'lifetime'] as const) await world.createTask({ family });
    const ann = world.gamer();
    const now = new Date();
    expect((await world.assign(ann, 'weekly')).body[0]!.expiredAt).toBe(expiryFor('weekly', now)!.toISOString());
    expect((await world.assign(ann, 'monthly')).body[0]!.expiredAt).toBe(expiryFor('monthly', now)!.toISOString());
    expect((await world.assign(ann, 'lifetime')).body[0]!.expiredAt).toBeNull();
  });

  it('assigns a task moved to another family to a gamer who holds a copy from its old family', async () => {
    const world = new World(stack);
    const task = await world.createTask({ family: 'lifetime' });
    const ann = world.gamer();
    expect((await world.assign(ann, 'lifetime')).body.map((t) => t.task.id)).toEqual([task.id]);
    const moved = await stack.api('PATCH', `/api/v1/${world.app}/tasks/${task.id}`, { headers: world.admin.auth, body: { family: 'daily' } });
    expect(moved.status).toBe(200);
    // Ann's lifetime copy never expires: it no longer keeps the daily task from her
    const daily = await world.assign(ann, 'daily');
    expect(daily.status).toBe(200);
    expect(daily.body.map((t) => [t.task.id, t.task.family, t.expiredAt === null])).toEqual([[task.id, 'daily', false]]);
    // and once held in its family, not twice
    expect((await world.assign(ann, 'daily')).status).toBe(409);
  });

  it('assigns a composite as one entry; the list shows its children as childTasks', async () => {
    const world = new World(stack);
    const composite = await world.createTask({ family: 'weekly', children: [child(), child({ applicationStatsId: 'wins' })] });
    const ann = world.gamer();
    const assigned = await world.assign(ann, 'weekly', 3);
    expect(assigned.body).toHaveLength(1);
    expect(assigned.body[0]!.task.children).toEqual(composite.children.map((c) => ({ id: c.id })));
    const [listed] = await world.tasks(ann);
    expect(listed!.id).toBe(assigned.body[0]!.id);
    expect(listed!.childTasks.map((c) => c.task.id)).toEqual(composite.children.map((c) => c.id));
    expect(listed!.childTasks.every((c) => c.task.parentTaskId === composite.id && c.expiredAt === listed!.expiredAt)).toBe(true);
  });

  it('gives a composite the children a crash left unwritten at the next list, even once its task is archived', async () => {
    const world = new World(stack);
    const composite = await world.createTask({ family: 'weekly', children: [child(), child({ applicationStatsId: 'wins' })] });
    const ann = world.gamer();
    const [assigned] = (await world.assign(ann, 'weekly')).body;
    const [listed] = await world.tasks(ann);
    const lost = listed!.childTasks[1]!;
    // as if the assign stopped after the parent and the first child were written
    const deleted = await (await stack.db()).collection<{ _id: string }>('gamer_tasks').deleteOne({ _id: lost.id });
    expect(deleted.deletedCount).toBe(1);
    // archived since: the catalog's reads no longer show it, the gamer still holds it
    expect((await stack.api('DELETE', `/api/v1/${world.app}/tasks/${composite.id}`, { headers: world.admin.auth })).status).toBe(204);
    const [repaired] = await world.tasks(ann);
    expect(repaired!.id).toBe(assigned!.id);
    expect(repaired!.childTasks.map((c) => c.id)).toEqual(listed!.childTasks.map((c) => c.id));
    expect(repaired!.childTasks[1]!.task.id).toBe(composite.children[1]!.id);
  });

  it('filters the list on completed=true|false (any case, 1|0), and shows all when absent or empty', async () => {
    const world = new World(stack);
    const easy = await world.createTask({ name: 'easy', targetValue: 1, applicationStatsId: 'wins' });
    const hard = await world.createTask({ name: 'hard', targetValue: 100, applicationStatsId: 'wins' });
    const ann = world.gamer();
    await world.assign(ann, 'daily', 2);
    await world.play(ann, { wins: 1 });
    await world.waitFor(ann, (l) => l.find((t) => t.task.id === easy.id), (t) => t.completed);
    const ids = async (query: string) => (await world.tasks(ann, query)).map((t) => t.task.id).sort();
    expect(await ids('?completed=true')).toEqual([easy.id]);
    expect(await ids('?completed=false')).toEqual([hard.id]);
    expect(await ids('')).toEqual([easy.id, hard.id].sort());
    expect(await ids('?completed=')).toEqual([easy.id, hard.id].sort());
    // as C#, Unity and Python's requests write booleans, and as 1/0
    expect(await ids('?completed=True')).toEqual([easy.id]);
    expect(await ids('?completed=0')).toEqual([hard.id]);
    expect((await stack.api('GET', '/api/v1/tasks?completed=yes', { headers: ann.auth })).status).toBe(400);
  });

  it('replays an assign with the same Idempotency-Key and body, and refuses the key with another body', async () => {
    const world = new World(stack);
    await Promise.all([1, 2, 3, 4].map((n) => world.createTask({ name: `D${n}` })));
    const ann = world.gamer();
    const key = { 'idempotency-key': `assign-${randomUUID()}` };
    const first = await world.assign(ann, 'daily', 2, key);
    const again = await world.assign(ann, 'DAILY', 2, key);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await world.tasks(ann)).toHaveLength(2);
    const reused = await world.assign(ann, 'daily', 1, key);
    expect(reused.status).toBe(409);
    expect(reused.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    // keys are per gamer: Bob's request with Ann's key is his own
    const bob = await world.assign(world.gamer(), 'daily', 1, key);
    expect(bob.status).toBe(200);
    expect((await world.assign(ann, 'daily', 1, { 'idempotency-key': 'x'.repeat(201) })).status).toBe(400);
    expect((await world.assign(ann, 'daily', 1, { 'idempotency-key': 'has space' })).status).toBe(400);
  });

  it('concurrent retries with one key assign once', async () => {
    const world = new World(stack);
    await Promise.all([1, 2, 3, 4, 5, 6].map((n) => world.createTask({ name: `D${n}` })));
    const ann = world.gamer();
    const key = { 'idempotency-key': randomUUID() };
    const answers = await Promise.all(Array.from({ length: 8 }, () => world.assign(ann, 'daily', 2, key)));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    for (const a of answers) expect([200, 409]).toContain(a.status);
    for (const a of ok) expect(a.body).toEqual(ok[0]!.body);
    expect(await world.tasks(ann)).toHaveLength(2);
  });

  it('answers a retry while its key\'s first request runs with 409 at once; takes over the key of a request that died', async () => {
    const world = new World(stack);
    await Promise.all([1, 2, 3].map((n) => world.createTask({ name: `D${n}` })));
    const ann = world.gamer();
    const key = randomUUID();
    const _id = `${world.app}:${ann.id.toLowerCase()}:${key}`;
    const keys = (await stack.db()).collection<{ _id: string; fingerprint: string; state: string; startedAt: Date; response?: unknown }>('idempotency_keys');
    // a first request with this key and body is running
    const startedAt = new Date();
    await keys.insertOne({ _id, fingerprint: assignFingerprint({ family: 'daily', numberOfTasks: 1 }), state: 'pending', startedAt });
    const meanwhile = await world.assign(ann, 'daily', 1, { 'idempotency-key': key });
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.body).toMatchObject({ code: 'CONFLICT' });
    expect(meanwhile.headers.get('retry-after')).toBe('1');
    expect(await world.tasks(ann)).toHaveLength(0);
    expect(await keys.findOne({ _id })).toMatchObject({ state: 'pending', startedAt });
    // its process died: after ABANDONED_AFTER_MS (30 s) a retry takes the key over and runs
    await keys.updateOne({ _id }, { $set: { startedAt: new Date(Date.now() - 31_000) } });
    const retried = await world.assign(ann, 'daily', 1, { 'idempotency-key': key });
    expect(retried.status).toBe(200);
    expect(await keys.findOne({ _id })).toMatchObject({ state: 'done', response: retried.body });
    expect((await world.assign(ann, 'daily', 1, { 'idempotency-key': key })).body).toEqual(retried.body);
    expect(await world.tasks(ann)).toHaveLength(1);
  });

  it('lets only the request holding a key store its answer or free it', async () => {
    const connection = await mongoose.createConnection(stack.mongoUrl).asPromise();
    try {
      const keys = new IdempotencyRepository(openStore(connection));
      const id = `fence:${randomUUID()}`;
      const first = new Date(Date.now() - 60_000);
      const second = new Date();
      expect(await keys.begin(id, 'fp', first)).toEqual({ kind: 'taken' });
      expect(await keys.takeOver(id, first, second)).toBe(true);
      // the request that lost the key (stalled past the take-over) comes back
      await keys.complete(id, first, ['stale']);
      await keys.release(id, first);
      expect(await keys.find(id)).toMatchObject({ state: 'pending', startedAt: second });
      await keys.complete(id, second, ['answer']);
      expect(await keys.find(id)).toMatchObject({ state: 'done', response: ['answer'] });
      await keys.release(id, second);
      expect(await keys.find(id)).toMatchObject({ state: 'done' });
    } finally {
      await connection.close();
    }
  });

  it('a key freed between a refused insert and the read is inserted again: the request holds it, and one key never runs twice', async () => {
    const connection = await mongoose.createConnection(stack.mongoUrl).asPromise();
    try {
      const store = openStore(connection);
      const real = store.idempotencyKeys;
      /** The store, its key collection wrapped: `before` runs ahead of each call of `method`. */
      const storeWith = (hooks: Partial<Record<'insertOne' | 'findOne', () => Promise<unknown>>>) => ({
        ...store,
        idempotencyKeys: new Proxy(real, {
          get: (target, prop, receiver) => {
            const value = Reflect.get(target, prop, receiver) as unknown;
            const hook = hooks[prop as 'insertOne' | 'findOne'];
            if (!hook || typeof value !== 'function') return value;
            return async (...args: unknown[]) => {
              await hook();
              return (value as (...a: unknown[]) => unknown).apply(target, args);
            };
          },
        }),
      });
      const id = `freed:${randomUUID()}`;
      const holderStartedAt = new Date(Date.now() - 1_000);
      await real.insertOne({ _id: id, fingerprint: 'fp', state: 'pending', startedAt: holderStartedAt });
      // the holder fails and frees its key (release) after this request's insert was refused, before its read
      let released = false;
      const keys = new IdempotencyRepository(storeWith({
        findOne: async () => {
          if (released) return;
          released = true;
          await new IdempotencyRepository(store).release(id, holderStartedAt);
        },
      }));
      const mine = new Date();
      const begun = await keys.begin(id, 'fp', mine);
      expect(released).toBe(true);
      // the key document is this request's: it alone may complete or free it
      expect(await real.findOne({ _id: id })).toMatchObject({ state: 'pending', startedAt: mine });
      expect(begun).toEqual({ kind: 'taken' });
      // a third request finds it held by this one
      const third = await new IdempotencyRepository(store).begin(id, 'fp', new Date());
      expect(third).toMatchObject({ kind: 'seen', stored: { startedAt: mine } });

      // the key changes hands under every attempt (taken before each insert, freed before each read): no endless loop, 409 CONFLICT
      const world = new World(stack);
      await world.createTask();
      const identity = { applicationId: world.app, gamerId: randomUUID(), roles: [] };
      const busy = `${identity.applicationId}:${identity.gamerId}:churn`;
      const rival = new Date(Date.now() - 1_000);
      let inserts = 0;
      const churning = storeWith({
        insertOne: async () => {
          inserts++;
          await real.insertOne({ _id: busy, fingerprint: 'fp', state: 'pending', startedAt: rival });
        },
        findOne: async () => void (await real.deleteOne({ _id: busy })),
      });
      expect(await new IdempotencyRepository(churning).begin(busy, 'fp', new Date())).toEqual({ kind: 'contended' });
      expect(inserts).toBe(3);
      // the assign answers that a request with the key is running, and assigns nothing
      const gamerTasks = new GamerTaskRepository(churning);
      const service = assignService(churning);
      await expect(service.assign(identity, { family: 'daily', numberOfTasks: 1 }, 'churn')).rejects.toMatchObject({ status: 409, code: 'CONFLICT' });
      expect(await gamerTasks.activeOf([identity], new Date())).toEqual([]);
    } finally {
      await connection.close();
    }
  });

  it('concurrent assigns never give a gamer the same task twice', async () => {
    const world = new World(stack);
    const daily = await Promise.all([1, 2, 3].map((n) => world.createTask({ name: `D${n}` })));
    const ann = world.gamer();
    const answers = await Promise.all(Array.from({ length: 10 }, () => world.assign(ann, 'daily', 1)));
    const assigned = answers.filter((a) => a.status === 200).flatMap((a) => a.body.map((t) => t.task.id));
    expect(assigned.sort()).toEqual(daily.map((d) => d.id).sort());
    expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 409)).toBe(true);
    const list = await world.tasks(ann);
    expect(list.map((t) => t.task.id).sort()).toEqual(daily.map((d) => d.id).sort());
  });

  it('leaves expired tasks out of every read, lets them be assigned again, and sweeps them', async () => {
    const world = new World(stack);
    const task = await world.createTask({ targetValue: 1 });
    const ann = world.gamer();
    const [held] = (await world.assign(ann, 'daily', 1)).body;
    // no sweep until the game below is settled: a sweep removing the expired task first
    // would keep it from progress whatever the consumer does
    await stack.restartTasks({ EXPIRY_SWEEP_INTERVAL_MS: '3600000' });
    // the day ends: move its expiry into the past, as time would
    const db = await stack.db();
    const past = new Date(Date.now() - 1000);
    await db.collection('gamer_tasks').updateOne({ _id: held!.id as never }, { $set: { expiredAt: past } });
    expect(await world.tasks(ann)).toEqual([]);
    // it takes no progress (a win would complete it): nothing announced for it, and the
    // gamer's progress document (the assign made it) holds no progress for it
    const nc = await stack.nats();
    const announced: { gamerTaskId: string }[] = [];
    const subs = [stack.names.taskCompleted, stack.names.taskProgress].map((subject) =>
      nc.subscribe(subject, { callback: (_e, msg) => void announced.push(msg.json<{ gamerTaskId: string }>()) }));
    await nc.flush();
    await world.play(ann, { wins: 5 });
    await untilAcknowledged(stack);
    for (const sub of subs) sub.unsubscribe();
    expect(await db.collection('gamer_tasks').countDocuments({ _id: held!.id as never })).toBe(1);
    const progress = await db.collection<GamerProgressDoc>('gamer_progress').findOne({ _id: progressKey({ applicationId: world.app, gamerId: ann.id }) });
    expect(progress).not.toBeNull();
    // the consumer's write may have dropped the entry, or left it as it was
    expect(progress!.tasks[held!.id] ?? { p: 0, g: 0, c: false }).toMatchObject({ p: 0, g: 0, c: false });
    expect(announced.filter((a) => a.gamerTaskId === held!.id)).toEqual([]);
    // and it cannot be claimed
    const claim = await stack.api('POST', `/api/v1/tasks/${held!.id}/claim`, { headers: ann.auth });
    expect(claim.status).toBe(404);
    // the family can be assigned afresh, the new task free of the game played before it
    const again = await world.assign(ann, 'daily', 1);
    expect(again.status).toBe(200);
    expect(again.body[0]!.task.id).toBe(task.id);
    expect(again.body[0]!.id).not.toBe(held!.id);
    expect(await world.tasks(ann)).toMatchObject([{ id: again.body[0]!.id, progress: 0, gamesPlayed: 0, completed: false }]);
    // the sweep (every second, as the stack was started) removes the expired one
    await stack.restartTasks();
    await eventually(async () => (await db.collection('gamer_tasks').countDocuments({ _id: held!.id as never })) === 0, 10_000, 200);
    expect((await world.tasks(ann)).map((t) => t.id)).toEqual([again.body[0]!.id]);
  });
});
