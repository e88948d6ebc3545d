import { describe, expect, it } from 'vitest';
import { readClaims } from '../../src/auth/claims.ts';

const jwt = (payload: unknown) => `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;
const APP = '00000000-0000-4000-8000-00000000000A';

describe('the console reads its token\'s claims', () => {
  it('takes an admin token, application id lower-cased', () => {
    const read = readClaims(jwt({ sub: 's', app: APP, name: 'Zoë', roles: ['admin'], exp: 2_000_000_000 }), 1_000);
    expect(read).toEqual({ ok: true, claims: { sub: 's', app: APP.toLowerCase(), name: 'Zoë', roles: ['admin'], exp: 2_000_000_000 } });
  });

  it('says why it refuses a token', () => {
    expect(readClaims('nope')).toEqual({ ok: false, reason: expect.stringMatching(/not a JWT/) });
    expect(readClaims('a.!!!.c')).toEqual({ ok: false, reason: expect.stringMatching(/not JSON/) });
    expect(readClaims(jwt({ sub: 's', roles: ['admin'] }))).toEqual({ ok: false, reason: expect.stringMatching(/sub and app/) });
    expect(readClaims(jwt({ sub: 's', app: APP, roles: ['server'] }))).toEqual({ ok: false, reason: expect.stringMatching(/no admin role/) });
    expect(readClaims(jwt({ sub: 's', app: APP, roles: ['admin'], exp: 10 }), 10_000)).toEqual({ ok: false, reason: expect.stringMatching(/expired/) });
  });
});
