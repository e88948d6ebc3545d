import { describe, expect, it } from 'vitest';
import { forwardedBody } from '../../src/forwarded-body.ts';

describe('forwardedBody', () => {
  // Falsy JSON values are bodies too; reply-from alone dropped them but kept their length.
  for (const value of [null, false, 0, '', [], {}, { target: 'x' }]) {
    it(`sends the parsed JSON ${JSON.stringify(value)} as JSON text`, () => {
      expect(forwardedBody({ body: value })).toEqual({ body: JSON.stringify(value), contentType: 'application/json' });
    });
  }

  it('sends no body when none was parsed, so nothing is announced upstream', () => {
    expect(forwardedBody({ body: undefined })).toEqual({ body: null });
  });
});
