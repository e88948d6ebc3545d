import { generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyFromJwk, keyFromPem, keySetFromJwks } from '../../src/verification-keys.ts';

const ACCEPTED = ['RS256', 'ES256'];
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });

function jwkOf(pair: { publicKey: { export(o: { format: 'jwk' }): JsonWebKey } }, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...pair.publicKey.export({ format: 'jwk' }), ...extra };
}

describe('JWK to verification key', () => {
  it('turns RSA and P-256 keys into PEM keys bound to their algorithm', () => {
    expect(keyFromJwk(jwkOf(rsa, { kid: 'r', use: 'sig' }), ACCEPTED)).toEqual({
      kid: 'r', material: rsa.publicKey.export({ type: 'spki', format: 'pem' }), algorithms: ['RS256'],
    });
    expect(keyFromJwk(jwkOf(ec, { kid: 'e', alg: 'ES256' }), ACCEPTED)).toMatchObject({ kid: 'e', algorithms: ['ES256'] });
  });

  it('refuses symmetric keys, private keys, encryption keys and keys of an unaccepted type or alg', () => {
    const refusal = (jwk: unknown) => {
      const key = keyFromJwk(jwk, ACCEPTED);
      return 'refused' in key ? key.refused : 'accepted';
    };
    expect(refusal({ kty: 'oct', k: Buffer.from('secret').toString('base64url'), kid: 'h' })).toMatch(/symmetric/);
    expect(refusal({ ...rsa.privateKey.export({ format: 'jwk' }), kid: 'p' })).toMatch(/private key material/);
    expect(refusal(jwkOf(rsa, { use: 'enc' }))).toMatch(/use is "enc"/);
    // operations listed without "verify" (RFC 7517 4.3); with it, or none listed, a key verifies
    expect(refusal(jwkOf(rsa, { key_ops: ['encrypt'] }))).toMatch(/key_ops \["encrypt"\] does not include "verify"/);
    expect(refusal(jwkOf(rsa, { key_ops: 'verify' }))).toMatch(/key_ops/);
    expect(refusal(jwkOf(rsa, { key_ops: ['verify'] }))).toBe('accepted');
    expect(refusal(jwkOf(p384))).toMatch(/ec \(secp384r1\) verifies none/);
    expect(refusal(jwkOf(rsa, { alg: 'RS512' }))).toMatch(/alg "RS512" is not accepted/);
    expect(refusal(jwkOf(rsa, { alg: 'HS256' }))).toMatch(/alg "HS256" is not accepted/);
    expect(refusal({ kty: 'RSA', n: 'AQAB' })).toMatch(/not a usable public key/);
    expect(refusal(jwkOf(rsa, { kid: 42 }))).toMatch(/kid/);
    expect(refusal('a string')).toMatch(/not a JSON object/);
  });

  it('narrows an RSA key to the accepted algorithms', () => {
    expect(keyFromJwk(jwkOf(rsa), ['RS256', 'PS256'])).toMatchObject({ algorithms: ['RS256', 'PS256'] });
    expect(keyFromPem(rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString(), ['ES256', 'PS256']).algorithms).toEqual(['PS256']);
  });
});

describe('JWKS document to key set', () => {
  it('keeps the usable keys and reports the others', () => {
    const set = keySetFromJwks({ keys: [jwkOf(rsa, { kid: 'a' }), jwkOf(ec, { kid: 'b' }), { kty: 'oct', k: 'c2VjcmV0', kid: 'c' }] }, ACCEPTED);
    expect(set.keys.map((key) => key.kid)).toEqual(['a', 'b']);
    expect(set.refused).toEqual([expect.stringMatching(/^kid "c": symmetric/)]);
  });

  it('refuses a document that is not a key set, repeats a kid or has no usable key', () => {
    expect(() => keySetFromJwks([jwkOf(rsa)], ACCEPTED)).toThrow(/not a JWKS document/);
    expect(() => keySetFromJwks(null, ACCEPTED)).toThrow(/not a JWKS document/);
    expect(() => keySetFromJwks({ keys: [jwkOf(rsa, { kid: 'a' }), jwkOf(ec, { kid: 'a' })] }, ACCEPTED)).toThrow(/kid "a" appears more than once/);
    expect(() => keySetFromJwks({ keys: [] }, ACCEPTED)).toThrow(/no usable key/);
    expect(() => keySetFromJwks({ keys: [jwkOf(p384, { kid: 'x' })] }, ACCEPTED)).toThrow(/no usable key \(kid "x": /);
  });
});
