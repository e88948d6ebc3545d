import { randomUUID } from 'node:crypto';
import { createApiClient, type ApiClient } from '@gfts/client';
import { eventually, gamer, type Gamer } from '@gfts/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessStack, type InProcessStack } from '../support/in-process.ts';

/**
 * The tour of scripts/demo.sh, through the gateway with the typed client (@gfts/client) a game
 * studio would use: every path, parameter and body here is checked against docs/openapi.json
 * at compile time.
 */
describe('a studio and its players, through the typed client', () => {
  let stack: InProcessStack;
  const app = randomUUID();
  const as = (who: Gamer): ApiClient => createApiClient({ baseUrl: stack.gatewayUrl, token: who.token });
  beforeAll(async () => {
    stack = await startInProcessStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('a task is created, assigned, completed by reported games and claimed once', async () => {
    const admin = as(gamer(app, 'Admin', { roles: ['admin'] }));
    const server = as(gamer(app, 'GameServer', { roles: ['server'] }));
    const annGamer = gamer(app, 'Ann');
    const ann = as(annGamer);
    const sword = randomUUID();

    const created = await admin.POST('/api/v1/{applicationId}/tasks', {
      params: { path: { applicationId: app } },
      body: {
        name: 'Win 3', description: 'Win 3 games out of 5', targetValue: 3, numberOfGames: 5, family: 'daily',
        applicationStatsId: 'wins', isAchievement: false, rewards: [{ inventoryItemId: sword, quantity: 1 }],
      },
    });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);

    const assigned = await ann.POST('/api/v1/tasks/assign', { body: { family: 'daily', numberOfTasks: 1 } });
    expect(assigned.data).toHaveLength(1);
    const gamerTask = assigned.data![0]!;
    expect(gamerTask.task.id).toBe(created.data!.id);

    for (const game of [1, 2, 3]) {
      const reported = await server.POST('/api/v1/stats', {
        body: {
          eventId: randomUUID(), applicationId: app, gamerId: annGamer.id, gameId: `match-${game}`,
          occurredAt: new Date().toISOString(), stats: [{ applicationStatsId: 'wins', value: 1 }],
        },
      });
      expect(reported.response.status, JSON.stringify(reported.error)).toBe(202);
    }

    const completed = await eventually(async () => {
      const { data } = await ann.GET('/api/v1/tasks', { params: { query: { completed: true } } });
      return data?.find((t) => t.id === gamerTask.id);
    });
    expect(completed).toMatchObject({ progress: 3, claimed: false });

    const claim = await ann.POST('/api/v1/tasks/{taskId}/claim', { params: { path: { taskId: gamerTask.id } } });
    expect(claim.data).toEqual([{ inventoryItemId: sword, quantity: 1 }]);
    const again = await ann.POST('/api/v1/tasks/{taskId}/claim', { params: { path: { taskId: gamerTask.id } } });
    expect({ status: again.response.status, code: again.error?.code }).toEqual({ status: 409, code: 'ALREADY_CLAIMED' });

    const inventory = await ann.GET('/api/v1/inventory');
    expect(inventory.data).toEqual([{ inventoryItemId: sword, quantity: 1 }]);
  });

  it('two gamers find each other, and a request becomes a friendship with the same id', async () => {
    const annGamer = gamer(app, 'Ann');
    const bobGamer = gamer(app, 'Bobby Tables');
    const [ann, bob] = [as(annGamer), as(bobGamer)];
    // a friendship call (only those) registers a gamer in the directory
    expect((await bob.GET('/api/v1/friendship')).data).toEqual([]);

    const found = await ann.GET('/api/v1/friendship/search', { params: { query: { displayName: 'bob' } } });
    expect(found.data).toEqual([{ id: bobGamer.id, displayName: 'Bobby Tables', avatar: '' }]);

    const requested = await ann.POST('/api/v1/friendship', { body: { target: bobGamer.id } });
    expect(requested.data).toEqual({ ok: true, id: expect.any(String), status: 'pending' });
    const friendshipId = requested.data!.id;
    const incoming = await bob.GET('/api/v1/friendship/requests/incoming');
    expect(incoming.data).toEqual([{ id: friendshipId, status: 'pending', user: { id: annGamer.id, displayName: 'Ann', avatar: '' } }]);

    expect((await bob.POST('/api/v1/friendship/{friendshipId}/accept', { params: { path: { friendshipId } } })).data).toEqual({ ok: true });
    const friends = await ann.GET('/api/v1/friendship');
    expect(friends.data).toEqual([{
      id: friendshipId, status: 'accepted', user: { id: bobGamer.id, displayName: 'Bobby Tables', avatar: '' },
      alias: '', favorite: false, presence: { status: expect.stringMatching(/^(online|offline)$/), lastSeenAt: expect.toBeOneOf([null, expect.any(String)]) },
    }]);
  });

  it('answers a refused call as a typed problem', async () => {
    const ann = as(gamer(app, 'Ann'));
    const unknown = await ann.POST('/api/v1/friendship/{friendshipId}/accept', { params: { path: { friendshipId: randomUUID() } } });
    expect(unknown.data).toBeUndefined();
    expect({ status: unknown.response.status, code: unknown.error?.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
    const anonymous = await createApiClient({ baseUrl: stack.gatewayUrl }).GET('/api/v1/inventory');
    expect(anonymous.response.status).toBe(401);
  });
});
