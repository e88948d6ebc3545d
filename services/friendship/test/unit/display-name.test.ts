import { describe, expect, it } from 'vitest';
import { displayNameKey, prefixRange } from '../../src/domain/display-name.ts';

describe('displayNameKey', () => {
  it('lower-cases and trims', () => {
    expect(displayNameKey('  DragonSlayer  ')).toBe('dragonslayer');
    expect(displayNameKey('\tÉlodie\n')).toBe('élodie');
  });

  it('applies NFKC, so composed and decomposed forms and compatibility characters meet', () => {
    expect(displayNameKey('E\u0301lodie')).toBe(displayNameKey('\u00c9lodie'));
    expect(displayNameKey('ＮＩＮＪＡ')).toBe('ninja');
    expect(displayNameKey('ﬁre')).toBe('fire');
    expect(displayNameKey('x²')).toBe('x2');
  });

  it('folds cases JavaScript lower-casing alone misses', () => {
    expect(displayNameKey('STRASSE')).toBe(displayNameKey('Straße'));
    // the capital sharp s, and the Turkish dotted and dotless i
    for (const name of ['GROẞ', 'Groß', 'GROSS', 'gross']) expect(displayNameKey(name)).toBe('gross');
    for (const name of ['İlker', 'ILKER', 'ılker', 'ilker']) expect(displayNameKey(name)).toBe('ilker');
    expect(displayNameKey('ΟΔΥΣΣΕΥΣ')).toBe(displayNameKey('οδυσσευς'));
    // a prefix ending in capital sigma still matches the middle of the word
    expect(displayNameKey('οδυσσευς').startsWith(displayNameKey('ΟΔΥΣ'))).toBe(true);
  });

  it('leaves regex and query syntax as plain characters', () => {
    expect(displayNameKey('.*')).toBe('.*');
    expect(displayNameKey('{"$ne":null}')).toBe('{"$ne":null}');
    expect(displayNameKey('^(a+)+$')).toBe('^(a+)+$');
  });

  it('is empty for a name of spaces only', () => {
    expect(displayNameKey('   ')).toBe('');
  });
});

describe('prefixRange', () => {
  const inRange = (key: string, prefix: string) => {
    const range = prefixRange(prefix);
    // the store compares UTF-8 bytes; Buffer.compare does the same
    const bytes = (s: string) => Buffer.from(s, 'utf8');
    return Buffer.compare(bytes(key), bytes(range.$gte)) >= 0 && Buffer.compare(bytes(key), bytes(range.$lt)) < 0;
  };

  it('holds every key starting with the prefix, including astral characters', () => {
    for (const key of ['ab', 'abc', 'ab\uffff', 'ab😀', 'ab\u{10fffe}', 'ab~']) expect(inRange(key, 'ab')).toBe(true);
  });

  it('holds no key that does not start with the prefix', () => {
    for (const key of ['a', 'aa', 'ac', 'b', '', 'a😀']) expect(inRange(key, 'ab')).toBe(false);
  });

  it('is a pair of plain strings (no operators or patterns from the input)', () => {
    expect(prefixRange('.*')).toEqual({ $gte: '.*', $lt: '.*\u{10ffff}' });
  });
});
