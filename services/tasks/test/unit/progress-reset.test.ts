import { describe, expect, it } from 'vitest';
import { entriesToDrop, grantsKept, isRemovableTree } from '../../src/domain/progress-reset.ts';

describe('entriesToDrop (a reset\'s progress cleanup)', () => {
  it('drops the removed tasks\' entries and those of tasks no longer held, keeps the held ones', () => {
    expect(entriesToDrop(['kept', 'removed', 'orphan'], ['kept', 'removed'], ['removed'])).toEqual(['removed', 'orphan']);
  });

  it('judges only the entries it was given: a task held but not read as an entry is not dropped', () => {
    expect(entriesToDrop(['old'], ['old', 'assigned-meanwhile'], [])).toEqual([]);
  });

  it('drops the entry of a removed task tracked again under its derived id (it is the old one\'s)', () => {
    expect(entriesToDrop(['achievement'], ['achievement'], ['achievement'])).toEqual(['achievement']);
  });

  it('drops nothing from an empty document', () => {
    expect(entriesToDrop([], ['a'], ['b'])).toEqual([]);
  });
});

describe('isRemovableTree (which trees a reset or erase may take)', () => {
  const node = (claimState: 'none' | 'claiming' | 'claimed') => ({ claimState });

  it('takes a tree whose top and children are all in the removal\'s claim states', () => {
    expect(isRemovableTree(node('none'), [node('none'), node('none')], ['none'])).toBe(true);
    expect(isRemovableTree(node('none'), [node('claimed')], ['none', 'claimed'])).toBe(true);
  });

  it('keeps a composite whose parent is unclaimed but one child was claimed', () => {
    expect(isRemovableTree(node('none'), [node('claimed'), node('none')], ['none'])).toBe(false);
  });

  it('keeps a tree with a claim in flight anywhere in it', () => {
    expect(isRemovableTree(node('none'), [node('claiming')], ['none', 'claimed'])).toBe(false);
    expect(isRemovableTree(node('claiming'), [], ['none', 'claimed'])).toBe(false);
  });
});

describe('grantsKept (a reset of scope all\'s inventory)', () => {
  it('keeps the grants of the gamer tasks left, not of one removed and tracked again under its id', () => {
    expect(grantsKept(['left', 'retracked'], ['retracked', 'gone'])).toEqual(['left']);
    expect(grantsKept([], ['gone'])).toEqual([]);
  });
});
