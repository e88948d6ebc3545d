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

/**
 * Whether a task tree may go under a removal that takes `claimStates`: its top and every
 * child must be in one of them. A composite whose parent is unclaimed but one child was
 * claimed (or is being claimed) stays whole: removing it let the gamer be assigned it
 * again, and claim that child's rewards a second time.
 */
export function isRemovableTree(top: Pick<GamerTaskRecord, 'claimState'>, children: readonly Pick<GamerTaskRecord, 'claimState'>[], claimStates: readonly ClaimState[]): boolean {
  return [top, ...children].every((node) => claimStates.includes(node.claimState));
}

/**
 * The progress entries a reset drops (docs/tasks.md "Reset"): those of the gamer tasks it
 * `removed` (also when one was tracked again meanwhile under its derived id: the entry is
 * the old one's), and every other one whose gamer task the gamer no longer `held`, so a
 * retried reset cleans what a failed first attempt left. Only entries read before `held`:
 * an entry is written after its gamer task, so one read first has its task in `held`, and
 * an entry written after the read (an assign meanwhile) is not the reset's to judge.
 */
export function entriesToDrop(entries: readonly string[], held: readonly string[], removed: readonly string[]): string[] {
  const keep = new Set(notRemoved(held, removed));
  return entries.filter((id) => !keep.has(id));
}

/** `ids` without those the reset removed (one tracked again meanwhile under its derived id is still the removed one's). */
function notRemoved(ids: readonly string[], removed: readonly string[]): string[] {
  const gone = new Set(removed);
  return ids.filter((id) => !gone.has(id));
}

/**
 * Whose grants a reset of scope `all` keeps: the gamer tasks the gamer still has (`present`,
 * read after the trees went: a claim in flight keeps what it paid), but not those it
 * `removed`, even when one was tracked again meanwhile under its derived id (an
 * achievement's read or stat): the grants are the old one's, and kept they made a later
 * claim of it grant nothing (its grant ids taken).
 */
export function grantsKept(present: readonly string[], removed: readonly string[]): string[] {
  return notRemoved(present, removed);
}
