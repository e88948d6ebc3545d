import { describe, expect, it } from 'vitest';
import { achievementIndex, missingAchievements, untrackedAchievements } from '../../src/domain/achievements.ts';
import type { CatalogEntry, CatalogTask } from '../../src/domain/model.ts';

const now = new Date();
const task = (id: string, stat: string, isAchievement = true): CatalogTask => ({
  id, name: id, description: '', targetValue: 1, numberOfGames: 0, family: 'lifetime', applicationStatsId: stat, isAchievement, rewards: [],
});
const entry = (t: CatalogTask, children: CatalogTask[] = [], archived = false): CatalogEntry => ({ ...t, applicationId: 'app', children, archived, createdAt: now, updatedAt: now });

const kills = entry(task('kills100', 'kills'));
const combo = entry(task('combo', 'ignored'), [task('c-wins', 'wins'), task('c-kills', 'kills')]);
const old = entry(task('old', 'kills'), [], true);
const daily = entry(task('daily', 'kills', false));
const index = achievementIndex([kills, combo, old, daily]);

describe('achievements tracked without assignment', () => {
  it('indexes live achievements by the stats of their leaves', () => {
    expect(index.all.map((e) => e.id)).toEqual(['kills100', 'combo']);
    expect(index.byStat.get('kills')?.map((e) => e.id)).toEqual(['kills100', 'combo']);
    expect(index.byStat.get('wins')?.map((e) => e.id)).toEqual(['combo']);
    expect(index.byStat.has('ignored')).toBe(false);
  });

  it('finds what a gamer lacks for an event\'s stats', () => {
    expect(missingAchievements(index, ['kills'], new Set()).map((e) => e.id)).toEqual(['kills100', 'combo']);
    expect(missingAchievements(index, ['kills'], new Set(['kills100', 'combo', 'c-kills'])).map((e) => e.id)).toEqual([]);
    expect(missingAchievements(index, ['wins'], new Set(['combo', 'c-kills'])).map((e) => e.id)).toEqual(['combo']);
    expect(missingAchievements(index, ['deaths'], new Set())).toEqual([]);
  });

  it('finds every achievement a gamer has no complete record of', () => {
    expect(untrackedAchievements(index, new Set(['kills100', 'combo', 'c-wins'])).map((e) => e.id)).toEqual(['combo']);
    expect(untrackedAchievements(index, new Set(['kills100', 'combo', 'c-wins', 'c-kills']))).toEqual([]);
  });
});
