import { describe, expect, it } from 'vitest';
import { JSON_NESTING_MAX, nestsDeeperThan } from '../../src/json-nesting.ts';

describe('nestsDeeperThan', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('counts objects and arrays, up to the bound and one past it', () => {
    expect(nestsDeeperThan(nested(JSON_NESTING_MAX))).toBe(false);
    expect(nestsDeeperThan(nested(JSON_NESTING_MAX + 1))).toBe(true);
    expect(nestsDeeperThan('{"a":{"b":[{"c":1}]}}', 3)).toBe(true);
    expect(nestsDeeperThan('{"a":{"b":[{"c":1}]}}', 4)).toBe(false);
    // siblings do not add up
    expect(nestsDeeperThan('[[1],[2],[3],{"a":[4]}]', 3)).toBe(false);
    expect(nestsDeeperThan('[[1],[2],[3],{"a":[4]}]', 2)).toBe(true);
  });

  it('skips brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(`{"name":"${'['.repeat(500)}"}`, 2)).toBe(false);
    expect(nestsDeeperThan(`{"name":"a\\"[[[[[","b":"\\\\"}`, 1)).toBe(false);
    expect(nestsDeeperThan(`{"a":"\\\\",[[[1]]]}`, 3)).toBe(true);
  });

  it('takes scalars and empty text', () => {
    expect(nestsDeeperThan('"[[[[["', 0)).toBe(false);
    expect(nestsDeeperThan('42', 0)).toBe(false);
    expect(nestsDeeperThan('', 0)).toBe(false);
  });
});
