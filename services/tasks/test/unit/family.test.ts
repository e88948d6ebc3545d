import { describe, expect, it } from 'vitest';
import { isTaskFamily, normaliseFamilies, normaliseFamily } from '../../src/domain/family.ts';

describe('family normalisation', () => {
  it('accepts any casing and keeps lower case', () => {
    expect(normaliseFamily('DAILY')).toBe('daily');
    expect(normaliseFamily('Weekly')).toBe('weekly');
    expect(normaliseFamily(' seasonal ')).toBe('seasonal');
    expect(normaliseFamily(7)).toBe(7);
  });

  it('knows the five families only', () => {
    for (const family of ['daily', 'weekly', 'monthly', 'seasonal', 'lifetime']) expect(isTaskFamily(family)).toBe(true);
    expect(isTaskFamily('DAILY')).toBe(false);
    expect(isTaskFamily('yearly')).toBe(false);
  });

  it('lower-cases a body and its children in place', () => {
    const body = { family: 'LIFETIME', children: [{ family: 'Lifetime' }, { name: 'x' }] };
    normaliseFamilies(body);
    expect(body).toEqual({ family: 'lifetime', children: [{ family: 'lifetime' }, { name: 'x' }] });
    expect(() => normaliseFamilies(null)).not.toThrow();
    expect(() => normaliseFamilies('text')).not.toThrow();
  });
});
