import { randomUUID } from 'node:crypto';
import type { Identity } from '@gfts/contracts';
import { createSigner } from 'fast-jwt';
import { describe, expect, it } from 'vitest';
import { ExpiringCache } from '../../src/expiring-cache.ts';
import { createIdentitySigner, createIdentityVerifier } from '../../src/identity.ts';

const SECRET = 'unit-test-internal-secret-0123456789abcdef';

describe('ExpiringCache', () => {
  it('keeps no entry already expired when set: it would never be returned, and would push out a live one', () => {
    const cache = new ExpiringCache<number>(1);
    cache.set('live', 1, 2_000, 0);
    cache.set('dead', 2, 500, 1_000);
    expect(cache.get('live', 1_000)).toBe(1);
    expect(cache.size).toBe(1);
  });

  it('returns an entry until its own expiry, never after', () => {
    const cache = new ExpiringCache<string>(10);
    cache.set('a', 'A', 1_000, 0);
    expect(cache.get('a', 999)).toBe('A');
    expect(cache.get('a', 1_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('drops the least recently used entry when full', () => {
    const cache = new ExpiringCache<number>(2);
    cache.set('a', 1, 10_000, 0);
    cache.set('b', 2, 10_000, 0);
    expect(cache.get('a', 0)).toBe(1); // a is now the most recently used
    cache.set('c', 3, 10_000, 0);
    expect(cache.get('b', 0)).toBeUndefined();
    expect(cache.get('a', 0)).toBe(1);
    expect(cache.get('c', 0)).toBe(3);
  });

  it('moves a hot entry up at most once a second: used again within it, it keeps its place', () => {
    const cache = new ExpiringCache<number>(2);
    cache.set('a', 1, 10_000, 0);
    cache.set('b', 2, 10_000, 0);
    expect(cache.get('a', 0)).toBe(1); // a moves up: b is the oldest
    expect(cache.get('b', 500)).toBe(2); // b moves up: a is the oldest
    expect(cache.get('a', 900)).toBe(1); // within a second of its move: a stays the oldest
    cache.set('c', 3, 10_000, 0);
    expect(cache.get('a', 900)).toBeUndefined();
    expect(cache.get('b', 1_400)).toBe(2); // within its second too: b stays, now the oldest
    expect(cache.get('c', 1_400)).toBe(3); // c moves up
    cache.set('d', 4, 10_000, 0);
    expect(cache.get('b', 1_400)).toBeUndefined();
    expect(cache.get('c', 1_400)).toBe(3);
  });

  it('keeps nothing when its size is 0, and forgets everything on clear', () => {
    const off = new ExpiringCache<number>(0);
    off.set('a', 1, 10_000, 0);
    expect(off.get('a', 0)).toBeUndefined();
    const cache = new ExpiringCache<number>(5);
    cache.set('a', 1, 10_000, 0);
    cache.clear();
    expect(cache.get('a', 0)).toBeUndefined();
  });
});

describe('identity assertion', () => {
  const identity = (): Identity => ({ gamerId: randomUUID(), applicationId: randomUUID(), displayName: 'Ann', roles: [] });

  it('sends the same assertion for one identity while it has half its life left, then a new one', () => {
    let now = Date.now();
    const sign = createIdentitySigner(SECRET, () => now);
    const ann = identity();
    const first = sign(ann);
    now += 29_000;
    expect(sign(ann)).toBe(first);
    now += 2_000;
    const renewed = sign(ann);
    expect(renewed).not.toBe(first);
    // another identity object (e.g. a live-channel ticket's) gets its own assertion
    expect(sign({ ...ann, ticketId: 't1' })).not.toBe(renewed);
  });

  it('asserts exactly the identity, valid for 60 s', () => {
    const sign = createIdentitySigner(SECRET);
    const ann = identity();
    const token = sign(ann);
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number; iat: number };
    expect(payload.exp - payload.iat).toBe(60);
    expect(createIdentityVerifier(SECRET)(token)).toEqual(ann);
  });

  it('verifies a repeated assertion from its cache until its exp, and checks it afresh after', () => {
    let now = Date.now();
    const token = createIdentitySigner(SECRET)(identity());
    const verify = createIdentityVerifier(SECRET, { clock: () => now });
    const first = verify(token);
    expect(verify(token)).toBe(first); // the same object: no second verification
    now += 61_000; // past the cached exp: verified again (real time has not passed, so it still passes)
    const again = verify(token);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    expect(() => createIdentityVerifier(SECRET)(`${token.slice(0, -2)}xx`)).toThrow();
  });

  it('never lets a cached assertion stand in for another text', () => {
    const verify = createIdentityVerifier(SECRET);
    const token = createIdentitySigner(SECRET)(identity());
    verify(token);
    expect(() => verify(`${token}x`)).toThrow();
    expect(() => createIdentityVerifier('another-secret-another-secret-0123456')(token)).toThrow();
  });

  it('refuses a token the internal secret signed that is no assertion (another audience, or none), and an expired assertion', () => {
    const verify = createIdentityVerifier(SECRET);
    const claims = { sub: randomUUID(), app: randomUUID(), exp: Math.floor(Date.now() / 1000) + 60 };
    expect(() => verify(createSigner({ key: SECRET })({ ...claims, aud: 'another-audience' }))).toThrow();
    expect(() => verify(createSigner({ key: SECRET })(claims))).toThrow();
    // signed two minutes ago: its 60 s are over
    expect(() => verify(createIdentitySigner(SECRET, () => Date.now() - 120_000)(identity()))).toThrow();
  });
});
