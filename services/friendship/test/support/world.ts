import type { FriendEntry, FriendRequestResponse, FriendshipEntry, Suggestion, UserSummary } from '@gfts/contracts';
import { gamer, mintToken, type ApiResponse, type Gamer, type TokenOptions } from '@gfts/testkit';
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { FriendshipStack } from './stack.ts';

export const BASE = '/api/v1/friendship';

/** Small verbs over the public API so tests read as the story they check. */
export function world(stack: FriendshipStack) {
  const { api } = stack;
  const as = (who: Gamer) => ({ headers: who.auth });

  const self = {
    api,
    /** A gamer who has called the API once, so the directory knows them. */
    async join(app: string, name: string, extra: Omit<TokenOptions, 'sub' | 'app' | 'name'> = {}): Promise<Gamer> {
      const who = gamer(app, name, extra);
      const response = await api('GET', BASE, as(who));
      expect(response.status).toBe(200);
      return who;
    },
    /** The same gamer id (`sub`) in another application, joined there: a different gamer to the service. */
    async elsewhere(who: Gamer, app: string = randomUUID()): Promise<Gamer> {
      const token = mintToken({ sub: who.id, app, name: `${who.name} elsewhere` });
      const twin = { id: who.id, app, name: `${who.name} elsewhere`, token, auth: { authorization: `Bearer ${token}` } };
      expect((await api('GET', BASE, as(twin))).status).toBe(200);
      return twin;
    },
    /** Several gamers of one fresh application. */
    async gamers(count: number, app: string = randomUUID(), prefix = 'Player'): Promise<Gamer[]> {
      return Promise.all(Array.from({ length: count }, (_, i) => self.join(app, `${prefix} ${i}`)));
    },
    request: (from: Gamer, target: string) => api<FriendRequestResponse>('POST', BASE, { ...as(from), body: { target } }),
    notes: (who: Gamer, id: string, body: unknown) => api<FriendEntry>('PATCH', `${BASE}/${id}`, { ...as(who), body }),
    suggestions: (who: Gamer, query = '') => api<Suggestion[]>('GET', `${BASE}/suggestions${query}`, as(who)),
    mutual: (who: Gamer, other: string) => api<UserSummary[]>('GET', `${BASE}/mutual/${other}`, as(who)),
    accept: (who: Gamer, id: string) => api<{ ok: boolean }>('POST', `${BASE}/${id}/accept`, as(who)),
    reject: (who: Gamer, id: string) => api<{ ok: boolean }>('DELETE', `${BASE}/requests/incoming/${id}`, as(who)),
    cancel: (who: Gamer, id: string) => api<{ ok: boolean }>('DELETE', `${BASE}/requests/outgoing/${id}`, as(who)),
    unfriend: (who: Gamer, id: string) => api<{ ok: boolean }>('DELETE', `${BASE}/${id}`, as(who)),
    block: (who: Gamer, target: string) => api<{ ok: boolean }>('POST', `${BASE}/block`, { ...as(who), body: { target } }),
    unblock: (who: Gamer, id: string) => api<{ ok: boolean }>('DELETE', `${BASE}/blocked/${id}`, as(who)),
    friends: (who: Gamer, query = '') => api<FriendEntry[]>('GET', `${BASE}${query}`, as(who)),
    incoming: (who: Gamer, query = '') => api<FriendshipEntry[]>('GET', `${BASE}/requests/incoming${query}`, as(who)),
    outgoing: (who: Gamer, query = '') => api<FriendshipEntry[]>('GET', `${BASE}/requests/outgoing${query}`, as(who)),
    blocked: (who: Gamer, query = '') => api<{ id: string; toGamer: { id: string; displayName: string; avatar: string } }[]>('GET', `${BASE}/blocked${query}`, as(who)),
    search: (who: Gamer, displayName: string, extra = '') =>
      api<{ id: string; displayName: string; avatar: string }[]>('GET', `${BASE}/search?displayName=${encodeURIComponent(displayName)}${extra}`, as(who)),

    /** The id of the pending request from `from` as `to` sees it. */
    async incomingId(to: Gamer, from: Gamer): Promise<string> {
      const list = await self.incoming(to);
      const entry = list.body.find((e) => e.user.id === from.id);
      if (!entry) throw new Error(`no incoming request from ${from.name} to ${to.name}`);
      return entry.id;
    },
    /** The id of the friendship between `who` and `friend`, from `who`'s friend list. */
    async friendshipId(who: Gamer, friend: Gamer): Promise<string> {
      const entry = (await self.friends(who, '?limit=200')).body.find((e) => e.user.id === friend.id);
      if (!entry) throw new Error(`${friend.name} is not a friend of ${who.name}`);
      return entry.id;
    },
    /** Makes two gamers friends and answers the friendship id: two calls, the request answers its id. */
    async befriend(a: Gamer, b: Gamer): Promise<string> {
      const requested = await self.request(a, b.id);
      expectRequested(requested, 'pending');
      expectOk(await self.accept(b, requested.body.id));
      return requested.body.id;
    },
  };
  return self;
}

export function expectOk(response: ApiResponse<unknown>): void {
  expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { ok: true } });
}

/** The answer of POST /: ok, the relation's id, and its status (when given, exactly that one). */
export function expectRequested(response: ApiResponse<unknown>, status?: 'pending' | 'accepted'): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status: 200,
    body: { ok: true, id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/), status: status ?? expect.stringMatching(/^(pending|accepted)$/) },
  });
}

/** A problem+json answer with this status and code. */
export function expectProblem(response: ApiResponse<unknown>, status: number, code: string): void {
  expect({ status: response.status, code: (response.body as { code?: string })?.code }).toEqual({ status, code });
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
}
