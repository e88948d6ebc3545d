import type { ApplicationTask, GamerTask, GamerTaskWithChildren, StatEvent } from '@gfts/contracts';
import { eventually, gamer, type ApiResponse, type Gamer } from '@gfts/testkit';
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { TasksStack } from './stack.ts';

/** An application with its admin, its game server and helpers to act as them. */
export class World {
  readonly app = randomUUID();
  readonly admin: Gamer;
  readonly server: Gamer;
  readonly stack: TasksStack;

  constructor(stack: TasksStack) {
    this.stack = stack;
    this.admin = gamer(this.app, 'Admin', { roles: ['admin'] });
    this.server = gamer(this.app, 'GameServer', { roles: ['server'] });
  }

  gamer(name = 'Player'): Gamer {
    return gamer(this.app, name);
  }

  async createTask(input: Record<string, unknown> = {}): Promise<ApplicationTask> {
    const response = await this.stack.api<ApplicationTask>('POST', `/api/v1/${this.app}/tasks`, { headers: this.admin.auth, body: taskInput(input) });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  async assign(who: Gamer, family: string, numberOfTasks = 1, headers: Record<string, string> = {}): Promise<ApiResponse<GamerTask[]>> {
    return this.stack.api<GamerTask[]>('POST', '/api/v1/tasks/assign', { headers: { ...who.auth, ...headers }, body: { family, numberOfTasks } });
  }

  async tasks(who: Gamer, query = ''): Promise<GamerTaskWithChildren[]> {
    const response = await this.stack.api<GamerTaskWithChildren[]>('GET', `/api/v1/tasks${query}`, { headers: who.auth });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  }

  async achievements(who: Gamer, query = ''): Promise<GamerTaskWithChildren[]> {
    const response = await this.stack.api<GamerTaskWithChildren[]>('GET', `/api/v1/achievements${query}`, { headers: who.auth });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  }

  async inventory(who: Gamer): Promise<{ inventoryItemId: string; quantity: number }[]> {
    const response = await this.stack.api<{ inventoryItemId: string; quantity: number }[]>('GET', '/api/v1/inventory', { headers: who.auth });
    expect(response.status).toBe(200);
    return response.body;
  }

  event(who: Gamer | string, stats: Record<string, number>, extra: Partial<StatEvent> = {}): StatEvent {
    return {
      eventId: randomUUID(),
      applicationId: this.app,
      gamerId: typeof who === 'string' ? who : who.id,
      gameId: `game-${randomUUID().slice(0, 8)}`,
      occurredAt: new Date().toISOString(),
      stats: Object.entries(stats).map(([applicationStatsId, value]) => ({ applicationStatsId, value })),
      ...extra,
    };
  }

  async report(event: StatEvent): Promise<ApiResponse<{ eventId: string; duplicate: boolean }>> {
    return this.stack.api('POST', '/api/v1/stats', { headers: this.server.auth, body: event });
  }

  async play(who: Gamer, stats: Record<string, number>): Promise<StatEvent> {
    const event = this.event(who, stats);
    const response = await this.report(event);
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    return event;
  }

  /** Publishes straight on NATS, as a game server may; `msgID` defaults to the eventId. */
  async publish(event: StatEvent | string, msgID?: string): Promise<void> {
    const nc = await this.stack.nats();
    const { jetstream } = await import('@nats-io/jetstream');
    const js = jetstream(nc);
    const data = typeof event === 'string' ? event : JSON.stringify(event);
    const id = msgID ?? (typeof event === 'string' ? undefined : event.eventId);
    await js.publish(this.stack.names.statsSubject(this.app), data, id ? { msgID: id } : {});
  }

  /** Polls the gamer's task (or achievement) list until `check` holds for the entry of `taskId`. */
  async waitFor(who: Gamer, pick: (list: GamerTaskWithChildren[]) => GamerTaskWithChildren | undefined, check: (t: GamerTaskWithChildren) => boolean, kind: 'tasks' | 'achievements' = 'tasks', timeoutMs = 10_000): Promise<GamerTaskWithChildren> {
    return eventually(async () => {
      const list = kind === 'tasks' ? await this.tasks(who) : await this.achievements(who);
      const found = pick(list);
      return found && check(found) ? found : undefined;
    }, timeoutMs);
  }
}

export function taskInput(input: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Win 3 games',
    description: 'win three games',
    targetValue: 3,
    numberOfGames: 0,
    family: 'daily',
    applicationStatsId: 'wins',
    isAchievement: false,
    rewards: [{ inventoryItemId: randomUUID(), quantity: 5 }],
    ...input,
  };
}

export const byTask = (taskId: string) => (list: GamerTaskWithChildren[]) => list.find((t) => t.task.id === taskId);
export const byId = (id: string) => (list: GamerTaskWithChildren[]) => list.find((t) => t.id === id);
