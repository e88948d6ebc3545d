import type { ApplicationTask, ApplicationTaskChild } from '@gfts/contracts';
import { describe, expect, it } from 'vitest';
import { expiryOf, gamerTaskDocs, seededUuidV7, trackedTaskId } from '../../src/datagen/tasks-direct.ts';

const app = '0a0b0c0d-0000-4000-8000-000000000001';
const child = (id: string, stat: string): ApplicationTaskChild => ({
  id,
  applicationId: app,
  name: `child ${id}`,
  description: 'd',
  targetValue: 3,
  numberOfGames: 0,
  family: 'weekly',
  parentTaskId: 'p1',
  applicationStatsId: stat,
  isAchievement: false,
  rewards: [],
});
const composite: ApplicationTask = {
  id: 'p1',
  applicationId: app,
  name: 'Weekly',
  description: 'D',
  targetValue: 1,
  numberOfGames: 0,
  family: 'weekly',
  parentTaskId: null,
  applicationStatsId: 'coins',
  isAchievement: false,
  rewards: [{ id: 'r1', inventoryItemId: 'i1', quantity: 2 }],
  children: [child('c1', 'kills'), child('c2', 'wins')],
};

describe('gamerTaskDocs', () => {
  const now = new Date('2026-11-23T13:00:00Z');
  let n = 0;
  const docs = gamerTaskDocs(composite, { applicationId: app, gamerId: 'g1', now, expiredAt: expiryOf('weekly', now), idFor: () => `id${n++}` });

  it('gives a composite one parent, moved by its children only, and a child per catalog child, all expiring together', () => {
    expect(docs.map((d) => [d._id, d.taskId, d.parentGamerTaskId, d.statKey])).toEqual([
      ['id0', 'p1', null, null],
      ['id1', 'c1', 'id0', 'kills'],
      ['id2', 'c2', 'id0', 'wins'],
    ]);
    expect(docs[0]!.children).toEqual([
      { taskId: 'c1', gamerTaskId: 'id1' },
      { taskId: 'c2', gamerTaskId: 'id2' },
    ]);
    for (const d of docs) expect(d.expiredAt).toEqual(new Date('2026-11-30T00:00:00Z'));
  });

  it('starts every task open, unclaimed, with the version field the older code reads', () => {
    for (const d of docs) {
      expect(d).toMatchObject({ progress: 0, games: 0, completed: false, completedAt: null, claimState: 'none', appliedEventIds: [], version: 1, createdAt: now });
    }
  });

  it('copies the task as a gamer task shows it: rewards without their ids, children by id', () => {
    expect(docs[0]!.task).toEqual({
      id: 'p1',
      applicationId: app,
      name: 'Weekly',
      description: 'D',
      applicationStatsId: 'coins',
      targetValue: 1,
      numberOfGames: 0,
      family: 'weekly',
      parentTaskId: null,
      isAchievement: false,
      rewards: [{ inventoryItemId: 'i1', quantity: 2 }],
      children: [{ id: 'c1' }, { id: 'c2' }],
    });
    expect(docs[1]!.task).toMatchObject({ id: 'c1', parentTaskId: 'p1', children: [] });
  });
});

describe('expiryOf', () => {
  it('ends daily tasks at the next UTC midnight and weekly ones on the next Monday (a week on a Monday); lifetime never', () => {
    const monday = new Date('2026-11-23T00:00:00Z');
    const sunday = new Date('2026-11-22T23:59:00Z');
    expect(expiryOf('daily', sunday)).toEqual(new Date('2026-11-23T00:00:00Z'));
    expect(expiryOf('weekly', sunday)).toEqual(new Date('2026-11-23T00:00:00Z'));
    expect(expiryOf('weekly', monday)).toEqual(new Date('2026-11-30T00:00:00Z'));
    expect(expiryOf('monthly', monday)).toEqual(new Date('2026-12-01T00:00:00Z'));
    expect(expiryOf('lifetime', monday)).toBeNull();
    expect(() => expiryOf('seasonal', monday)).toThrow();
  });
});

describe('ids', () => {
  it('derives an achievement record id as the service does (a value computed with services/tasks/src/domain/ids.ts)', () => {
    expect(trackedTaskId(app, '0a0b0c0d-0000-4000-8000-000000000002', '0a0b0c0d-0000-4000-8000-000000000003')).toBe('0ff9b073-54b7-88bf-a950-2b0d2fecb3eb');
  });

  it('makes version 7 UUIDs that carry their time, differ per index and repeat per seed', () => {
    const at = new Date('2026-11-23T13:00:00Z');
    const a = seededUuidV7(at, 's', 0);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(a.replace(/-/g, '').slice(0, 12), 16)).toBe(at.getTime());
    expect(seededUuidV7(at, 's', 1)).not.toBe(a);
    expect(seededUuidV7(at, 's', 0)).toBe(a);
  });
});
