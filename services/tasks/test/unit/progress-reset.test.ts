import { describe, expect, it } from 'vitest';
import { entriesToDrop } from '../../src/domain/progress-reset.ts';

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
