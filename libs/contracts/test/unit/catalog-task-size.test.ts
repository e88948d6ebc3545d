import { describe, expect, it } from 'vitest';
import { ApplicationTaskInput, ApplicationTaskPatch, CATALOG_TASK_MAX_BYTES, TaskLimits } from '../../src/tasks.ts';
import { check } from '../../src/validate.ts';
import { asciiJson, bytes, CHARACTERS, encodings } from '../support/encodings.ts';

const rewardId = (i: number) => `0193a5b2-7c1e-7d3f-9a21-${String(i).padStart(12, '0')}`;

/** One task of the largest catalog body, every string at its bound in `character`. */
function largestTask(character: string) {
  return {
    name: character.repeat(TaskLimits.NAME_MAX),
    description: character.repeat(TaskLimits.DESCRIPTION_MAX),
    targetValue: TaskLimits.TARGET_MAX,
    numberOfGames: TaskLimits.GAMES_MAX,
    applicationStatsId: character.repeat(TaskLimits.STAT_ID_MAX),
    family: 'lifetime',
    isAchievement: true,
    parentTaskId: null,
    rewards: Array.from({ length: TaskLimits.REWARDS_MAX }, (_, i) => ({ inventoryItemId: rewardId(i), quantity: TaskLimits.QUANTITY_MAX })),
  };
}

/** The schema's largest create: a composite with the most children, each as large as it can be. */
const largestCreate = (character: string) => ({ ...largestTask(character), children: Array.from({ length: TaskLimits.CHILDREN_MAX }, () => largestTask(character)) });

describe('CATALOG_TASK_MAX_BYTES', () => {
  it('is over every schema-valid largest create and patch, however an encoder writes it', () => {
    let largest = 0;
    for (const character of CHARACTERS) {
      const create = largestCreate(character);
      const { family: _f, parentTaskId: _p, ...patch } = largestTask(character);
      expect(check(ApplicationTaskInput, create).ok, JSON.stringify(character)).toBe(true);
      expect(check(ApplicationTaskPatch, patch).ok, JSON.stringify(character)).toBe(true);
      for (const body of [create, patch]) {
        for (const text of encodings(body)) {
          largest = Math.max(largest, bytes(text));
          expect(bytes(text), JSON.stringify(character)).toBeLessThanOrEqual(CATALOG_TASK_MAX_BYTES);
        }
      }
    }
    // the figures its comment gives, and the body that was refused before (ASCII: ~85 KB, over 16 KiB)
    expect(bytes(JSON.stringify(largestCreate('a')))).toBeGreaterThan(80_000);
    expect(bytes(asciiJson(largestCreate('😀')))).toBeGreaterThan(600_000);
    // headroom, not a blank cheque: at most a quarter above the largest body
    expect(CATALOG_TASK_MAX_BYTES).toBeLessThan(largest * 1.25);
  });
});
