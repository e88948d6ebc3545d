import { mongo } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { refusedByUniqueKeys } from '../../src/repository/inbox.ts';

/**
 * The driver's error for an unordered insert of `ids` whose documents at `refused` hit a
 * unique key, with a write concern error in its result or not. The result stands in for the
 * driver's BulkWriteResult (not exported), by the method the driver gives it for this.
 */
function bulkError(ids: string[], refused: number[], writeConcernError: boolean): Error {
  const writeErrors = refused.map((index) => ({ index, code: 11000, errmsg: 'E11000 duplicate key' }));
  const result = { insertedCount: ids.length - refused.length, getWriteConcernError: () => (writeConcernError ? { code: 64, errmsg: 'waiting for replication timed out' } : undefined) };
  return new mongo.MongoBulkWriteError({ message: 'E11000 duplicate key', code: 11000, writeErrors } as never, result as never);
}

describe('which documents of a bulk insert a unique key refused', () => {
  it('names the refused ones when the store says which', () => {
    expect(refusedByUniqueKeys(bulkError(['a', 'b', 'c'], [1], false), ['a', 'b', 'c'])).toEqual(['b']);
  });

  it('names none (the write fails and is tried again) when the same answer carries a write concern error: nothing of it is known stored', () => {
    expect(refusedByUniqueKeys(bulkError(['a', 'b', 'c'], [1], true), ['a', 'b', 'c'])).toBeUndefined();
  });
});
