import type { VerificationKey } from './verification-keys.ts';

/** The keys a token may be verified with at one moment. */
export interface Keyring {
  /** the key of JWT_SECRET or JWT_PUBLIC_KEY, when set */
  single?: VerificationKey;
  /** the current key set of JWT_JWKS_FILE / JWT_JWKS_URL, when configured */
  jwks?: readonly VerificationKey[];
}

export type Selection = { key: VerificationKey } | { refused: string };

/**
 * Picks the one key a token's header names, before any signature check.
 *
 * - Without a key set, the single key verifies every token, `kid` or not (as before key
 *   sets existed: identity providers put a `kid` in every token).
 * - With a key set, a `kid` must name a key of the set; an unknown one is refused (no
 *   fallback to the single key, which would make the `kid` meaningless).
 * - A token without `kid` goes to the single key when there is one; otherwise to the
 *   set's only key when it has exactly one, since there is then no doubt which key is
 *   meant. With several keys it is refused: trying each in turn would let a token pick
 *   its key, and costs one signature check per key.
 * - The token's `alg` must be one the chosen key verifies, which refuses `none` and an
 *   HMAC token "signed" with a public key (algorithm confusion).
 */
export function selectKey(header: { alg?: unknown; kid?: unknown }, keyring: Keyring): Selection {
  const chosen = chooseByKid(header.kid, keyring);
  if ('refused' in chosen) return chosen;
  if (typeof header.alg !== 'string' || !chosen.key.algorithms.includes(header.alg)) {
    return { refused: `algorithm ${JSON.stringify(header.alg)} is not accepted for this key` };
  }
  return chosen;
}

function chooseByKid(kid: unknown, { single, jwks }: Keyring): Selection {
  if (kid !== undefined && typeof kid !== 'string') return { refused: 'kid must be a string' };
  if (!jwks) return single ? { key: single } : { refused: 'no verification key is configured' };
  if (kid !== undefined) {
    const key = jwks.find((candidate) => candidate.kid === kid);
    return key ? { key } : { refused: 'unknown signing key (kid)' };
  }
  if (single) return { key: single };
  if (jwks.length === 1) return { key: jwks[0]! };
  return { refused: 'token has no kid and several signing keys are configured' };
}

/** What a keyring verifies with, as one string: equal strings, equal keys (kids, algorithms, material). */
export function keyringFingerprint({ single, jwks }: Keyring): string {
  const one = (key: VerificationKey | undefined) => (key ? [key.kid ?? null, key.algorithms, key.material] : null);
  return JSON.stringify([one(single), jwks?.map(one) ?? null]);
}
