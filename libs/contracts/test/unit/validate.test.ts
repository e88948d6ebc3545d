import { describe, expect, it } from 'vitest';
import { Uuid } from '../../src/common.ts';
import { check, createAjv } from '../../src/validate.ts';

describe('the uuid format', () => {
  const id = '0190a5d2-7c4e-7000-8000-00000000abcd';

  it('takes a UUID in its text form, either case', () => {
    expect(check(Uuid, id).ok).toBe(true);
    expect(check(Uuid, id.toUpperCase()).ok).toBe(true);
  });

  it('refuses the urn form ajv-formats accepts, and anything around a UUID', () => {
    for (const value of [`urn:uuid:${id}`, `${id}\n`, ` ${id}`, `${id}.x`, id.replaceAll('-', ''), `{${id}}`]) {
      expect(check(Uuid, value).ok, JSON.stringify(value)).toBe(false);
    }
  });

  it('is the same in every validator the servers build', () => {
    const validate = createAjv({ coerceTypes: true }).compile(Uuid);
    expect(validate(`urn:uuid:${id}`)).toBe(false);
    expect(validate(id)).toBe(true);
  });
});
