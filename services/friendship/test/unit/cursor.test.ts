import { PageQuery } from '@gfts/contracts';
import { AppError, uuidv7 } from '@gfts/platform';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../src/domain/cursor.ts';

describe('paging cursors', () => {
  it('round-trip an id through an opaque url-safe token', () => {
    const id = uuidv7();
    const cursor = encodeCursor(id);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(cursor).not.toContain(id.slice(0, 8));
    expect(decodeCursor(cursor)).toBe(id);
  });

  it('round-trip ids from any moment exactly', () => {
    const ids = [uuidv7(1), uuidv7(2), uuidv7(3)];
    expect(ids.map((id) => decodeCursor(encodeCursor(id)))).toEqual(ids);
  });

  it.each([
    ['too short', 'AAAA'],
    ['too long', 'A'.repeat(23)],
    ['padded', `${encodeCursor(uuidv7())}==`],
    ['standard base64 characters', 'AZh+/AAAAAAAAAAAAAAAAA'],
    ['non-canonical last character', 'AAAAAAAAAAAAAAAAAAAAAB'],
    ['empty', ''],
    ['a digit', '0'],
  ])('reject a malformed cursor (%s) with 400 VALIDATION_FAILED', (_why, cursor) => {
    try {
      decodeCursor(cursor);
      expect.unreachable('decoded a malformed cursor');
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    }
  });

  // The OpenAPI document promises this pattern: what it allows must decode, what it refuses must not.
  const documented = new RegExp((PageQuery.properties.cursor as unknown as { pattern: string }).pattern);
  it.each(['AAAA', 'A'.repeat(23), '0', 'AAAAAAAAAAAAAAAAAAAAAB', 'AZh+/AAAAAAAAAAAAAAAAA', `${encodeCursor(uuidv7())}==`])(
    'is refused by the documented pattern exactly when malformed (%s)',
    (cursor) => {
      expect(documented.test(cursor)).toBe(false);
    },
  );
  it('is matched by the documented pattern for every cursor it makes', () => {
    for (const last of ['0', '4', '8', 'c', 'f', 'a']) {
      const id = `${uuidv7().slice(0, -1)}${last}`;
      expect(encodeCursor(id)).toMatch(documented);
    }
    expect(decodeCursor('_'.repeat(21) + 'w')).toMatch(/^f{8}-/);
  });

  it('refuse to encode something that is not an id', () => {
    expect(() => encodeCursor('nope')).toThrow();
  });
});
