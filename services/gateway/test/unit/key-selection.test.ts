import { describe, expect, it } from 'vitest';
import { keyringFingerprint, selectKey, type Keyring } from '../../src/key-selection.ts';
import type { VerificationKey } from '../../src/verification-keys.ts';

const oldKey: VerificationKey = { kid: 'old', material: 'old-pem', algorithms: ['RS256'] };
const newKey: VerificationKey = { kid: 'new', material: 'new-pem', algorithms: ['ES256'] };
const pemKey: VerificationKey = { material: 'single-pem', algorithms: ['RS256', 'ES256'] };
const secretKey: VerificationKey = { material: 'secret', algorithms: ['HS256'] };

function chosen(header: { alg?: unknown; kid?: unknown }, keyring: Keyring): string {
  const selection = selectKey(header, keyring);
  return 'key' in selection ? selection.key.material : `refused: ${selection.refused}`;
}

describe('key selection by kid', () => {
  it('picks the key a kid names, while both keys of a rotation are in the set', () => {
    const keyring = { jwks: [oldKey, newKey] };
    expect(chosen({ alg: 'RS256', kid: 'old' }, keyring)).toBe('old-pem');
    expect(chosen({ alg: 'ES256', kid: 'new' }, keyring)).toBe('new-pem');
  });

  it('refuses a kid the set does not have, even with a single key to fall back to', () => {
    expect(chosen({ alg: 'RS256', kid: 'gone' }, { jwks: [newKey] })).toMatch(/refused: unknown signing key/);
    expect(chosen({ alg: 'RS256', kid: 'gone' }, { jwks: [newKey], single: pemKey })).toMatch(/refused: unknown signing key/);
  });

  it('refuses a kid that is not a string', () => {
    expect(chosen({ alg: 'RS256', kid: 7 }, { jwks: [oldKey] })).toMatch(/refused: kid must be a string/);
  });

  it('without a key set, verifies every token with the single key, kid or not', () => {
    expect(chosen({ alg: 'RS256', kid: 'anything' }, { single: pemKey })).toBe('single-pem');
    expect(chosen({ alg: 'RS256' }, { single: pemKey })).toBe('single-pem');
    expect(chosen({ alg: 'HS256' }, { single: secretKey })).toBe('secret');
  });

  it('gives a token without kid to the single key, else to the only key of the set', () => {
    expect(chosen({ alg: 'RS256' }, { jwks: [oldKey, newKey], single: pemKey })).toBe('single-pem');
    expect(chosen({ alg: 'ES256' }, { jwks: [newKey] })).toBe('new-pem');
    expect(chosen({ alg: 'RS256' }, { jwks: [oldKey, newKey] })).toMatch(/refused: token has no kid and several signing keys/);
  });

  it('refuses an algorithm the chosen key does not verify: none, HMAC with a public key, another key type', () => {
    const keyring = { jwks: [oldKey, newKey] };
    expect(chosen({ alg: 'none', kid: 'old' }, keyring)).toMatch(/refused: algorithm "none"/);
    expect(chosen({ alg: 'HS256', kid: 'old' }, keyring)).toMatch(/refused: algorithm "HS256"/);
    expect(chosen({ alg: 'ES256', kid: 'old' }, keyring)).toMatch(/refused: algorithm "ES256"/);
    expect(chosen({ kid: 'old' }, keyring)).toMatch(/refused: algorithm undefined/);
    expect(chosen({ alg: 'HS256' }, { single: pemKey })).toMatch(/refused: algorithm "HS256"/);
    expect(chosen({ alg: 'none' }, { single: secretKey })).toMatch(/refused: algorithm "none"/);
  });
});

describe('keyring fingerprint (drops the verified-token cache when it changes)', () => {
  it('is the same for the same keys reloaded as new objects', () => {
    expect(keyringFingerprint({ jwks: [oldKey, newKey] })).toBe(keyringFingerprint({ jwks: [{ ...oldKey }, { ...newKey }] }));
    expect(keyringFingerprint({ single: secretKey })).toBe(keyringFingerprint({ single: { ...secretKey } }));
  });
  it('changes when a key is withdrawn, added, or its material or algorithms change', () => {
    const before = keyringFingerprint({ jwks: [oldKey, newKey] });
    expect(keyringFingerprint({ jwks: [newKey] })).not.toBe(before);
    expect(keyringFingerprint({ jwks: [oldKey, newKey, pemKey] })).not.toBe(before);
    expect(keyringFingerprint({ jwks: [{ ...oldKey, material: 'other-pem' }, newKey] })).not.toBe(before);
    expect(keyringFingerprint({ jwks: [{ ...oldKey, algorithms: ['PS256'] }, newKey] })).not.toBe(before);
    expect(keyringFingerprint({ single: pemKey, jwks: [oldKey, newKey] })).not.toBe(before);
  });
});
