import { describe, expect, it } from 'vitest';
import { leftOverPublication } from '../../src/domain/erasure-job.ts';

const expected = ['tasks', 'friendship', 'notifications'];
const at = new Date('2026-11-29T10:00:00Z');

describe('leftOverPublication', () => {
  it('publishes a job nobody reported for every service', () => {
    expect(leftOverPublication({ expected, done: {} })).toEqual({ kind: 'publish' });
  });

  it('publishes a job some service reported (its event was in the stream) for the others only', () => {
    expect(leftOverPublication({ expected, done: { friendship: at } })).toEqual({ kind: 'publish', services: ['tasks', 'notifications'] });
    // a report of a service it does not wait for (deployed since) counts as a sign of the publish too
    expect(leftOverPublication({ expected, done: { search: at } })).toEqual({ kind: 'publish', services: expected });
  });

  it('only marks a job every expected service reported', () => {
    expect(leftOverPublication({ expected, done: { tasks: at, friendship: at, notifications: at } })).toEqual({ kind: 'complete' });
  });
});
