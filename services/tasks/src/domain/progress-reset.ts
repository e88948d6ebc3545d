import type { ResetScope } from '@gfts/contracts';
import type { ClaimState, GamerTaskRecord } from './model.ts';

/**
 * Which of a gamer's task trees a reset of `scope` removes (docs/tasks.md "Reset"): tasks or
 * achievements whose rewards were not claimed; with `all`, claimed ones too (their rewards
 * leave the inventory as well). A claim in flight is never cut short.
 */
export function resetSelection(scope: ResetScope): { select: (top: GamerTaskRecord) => boolean; claimStates: ClaimState[] } {
  switch (scope) {
    case 'tasks':
      return { select: (top) => !top.isAchievement, claimStates: ['none'] };
    case 'achievements':
      return { select: (top) => top.isAchievement, claimStates: ['none'] };
    case 'all':
      return { select: () => true, claimStates: ['none', 'claimed'] };
  }
}
