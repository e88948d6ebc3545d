import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

/**
 * A key the gateway verifies tokens with: the key material as fast-jwt takes it (a PEM
 * string for public keys, the secret for HS256) and the algorithms this key may verify.
 * Binding algorithms to each key is what keeps algorithm confusion out: a token whose
 * `alg` is not one of its key's algorithms is refused before any signature check.
 */
export interface VerificationKey {
  kid?: string;
  material: string;
  algorithms: readonly string[];
}

/** The algorithms a public key's type can verify, in the order we prefer them. */
function algorithmsOfKeyType(key: KeyObject): string[] {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return ['RS256', 'PS256'];
    case 'rsa-pss':
      return ['PS256'];
    case 'ec':
      return key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? ['ES256'] : [];
    case 'ed25519':
      return ['EdDSA'];
    default:
      return [];
  }
}

function describeKeyType(key: KeyObject): string {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return curve ? `${key.asymmetricKeyType} (${curve})` : String(key.asymmetricKeyType);
}

/** Thrown for a key or key set that cannot be used; the message is safe to log. */
export class KeyError extends Error {
  override name = 'KeyError';
}

/** The key of `JWT_PUBLIC_KEY`, with the accepted algorithms its type can verify. */
export function keyFromPem(pem: string, accepted: readonly string[]): VerificationKey {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (error) {
    throw new KeyError(`not a readable PEM public key (${(error as Error).message})`);
  }
  const algorithms = algorithmsOfKeyType(key).filter((a) => accepted.includes(a));
  if (algorithms.length === 0) throw new KeyError(`a key of type ${describeKeyType(key)} verifies none of the accepted algorithms ${accepted.join(',')}`);
  return { material: pem, algorithms };
}

/** The key of `JWT_SECRET` (development): HS256 only. */
export function keyFromSecret(secret: string): VerificationKey {
  return { material: secret, algorithms: ['HS256'] };
}

/**
 * One JWK as a verification key, or the reason it is not one. Refused: symmetric keys
 * (`oct`: a published HMAC key would let anyone sign), keys carrying private parts (a
 * leaked signing key must not be trusted), keys not for signatures, and keys whose type
 * or declared `alg` none of the accepted algorithms matches.
 */
export function keyFromJwk(jwk: unknown, accepted: readonly string[]): VerificationKey | { refused: string } {
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return { refused: 'not a JSON object' };
  const fields = jwk as Record<string, unknown>;
  if (fields.kid !== undefined && (typeof fields.kid !== 'string' || fields.kid === '')) return { refused: 'kid is not a non-empty string' };
  if (fields.kty === 'oct') return { refused: 'symmetric (oct) keys are never accepted from a key set' };
  if ('d' in fields) return { refused: 'carries private key material' };
  if (fields.use !== undefined && fields.use !== 'sig') return { refused: `use is ${JSON.stringify(fields.use)}, not "sig"` };
  // RFC 7517 4.3: a key whose operations are listed verifies only if "verify" is among them
  if (fields.key_ops !== undefined && !(Array.isArray(fields.key_ops) && fields.key_ops.includes('verify'))) return { refused: `key_ops ${JSON.stringify(fields.key_ops)} does not include "verify"` };
  let key: KeyObject;
  try {
    key = createPublicKey({ key: fields as JsonWebKey, format: 'jwk' });
  } catch (error) {
    return { refused: `not a usable public key (${(error as Error).message})` };
  }
  let algorithms = algorithmsOfKeyType(key).filter((a) => accepted.includes(a));
  if (fields.alg !== undefined) {
    // A key published for one algorithm verifies that one only.
    algorithms = algorithms.filter((a) => a === fields.alg);
    if (algorithms.length === 0) return { refused: `alg ${JSON.stringify(fields.alg)} is not accepted for a key of type ${describeKeyType(key)}` };
  }
  if (algorithms.length === 0) return { refused: `a key of type ${describeKeyType(key)} verifies none of the accepted algorithms ${accepted.join(',')}` };
  return {
    ...(fields.kid !== undefined ? { kid: fields.kid as string } : {}),
    material: key.export({ type: 'spki', format: 'pem' }).toString(),
    algorithms,
  };
}

export interface KeySet {
  keys: VerificationKey[];
  /** keys left out, with why, for the log */
  refused: string[];
}

/**
 * The usable keys of a JWKS document (RFC 7517 `{"keys": [...]}`). Unusable keys are
 * left out and reported; a document that is not a key set, repeats a `kid` (which key
 * signed would be ambiguous) or has no usable key at all is refused as a whole, so a
 * broken publication never replaces a good set.
 */
export function keySetFromJwks(document: unknown, accepted: readonly string[]): KeySet {
  const list = (document as { keys?: unknown } | null)?.keys;
  if (typeof document !== 'object' || document === null || !Array.isArray(list)) throw new KeyError('not a JWKS document (an object with a "keys" array)');
  const keys: VerificationKey[] = [];
  const refused: string[] = [];
  const seen = new Set<string>();
  list.forEach((jwk: unknown, index) => {
    const kid = (jwk as { kid?: unknown } | null)?.kid;
    const name = typeof kid === 'string' ? `kid ${JSON.stringify(kid)}` : `key #${index}`;
    if (typeof kid === 'string') {
      if (seen.has(kid)) throw new KeyError(`${name} appears more than once`);
      seen.add(kid);
    }
    const key = keyFromJwk(jwk, accepted);
    if ('refused' in key) refused.push(`${name}: ${key.refused}`);
    else keys.push(key);
  });
  if (keys.length === 0) throw new KeyError(`no usable key${refused.length ? ` (${refused.join('; ')})` : ''}`);
  return { keys, refused };
}
