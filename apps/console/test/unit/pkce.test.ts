import { describe, expect, it } from 'vitest';
import { authorizationRequestUrl, base64url, codeChallenge, randomVerifier, readCallback, tokenErrorMessage, tokenFromResponse, tokenRequestBody, type OidcSettings } from '../../src/auth/pkce.ts';

const oidc: OidcSettings = {
  authorizationUrl: 'https://id.example.com/oauth2/authorize?tenant=studio',
  tokenUrl: 'https://id.example.com/oauth2/token',
  clientId: 'console',
  scope: 'openid profile',
  audience: null,
  tokenField: 'access_token',
};

describe('PKCE (RFC 7636)', () => {
  it('derives the S256 challenge of the RFC\'s Appendix B example', async () => {
    expect(await codeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('makes verifiers of 43 unreserved characters from 32 random bytes, never the same twice', () => {
    const fixed = randomVerifier((bytes) => bytes.fill(255));
    expect(fixed).toBe('_'.repeat(42) + '8');
    const a = randomVerifier();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomVerifier()).not.toBe(a);
  });

  it('refuses a verifier shorter than 43 characters or with other characters', async () => {
    await expect(codeChallenge('short')).rejects.toThrow(/43-128/);
    await expect(codeChallenge('a'.repeat(42) + '+')).rejects.toThrow(/43-128/);
  });

  it('encodes base64url without padding', () => {
    expect(base64url(new Uint8Array([251, 255]))).toBe('-_8');
    expect(base64url(new Uint8Array([]))).toBe('');
  });

  it('builds the authorization request with the code challenge, keeping the endpoint\'s own parameters', () => {
    const url = new URL(authorizationRequestUrl({ ...oidc, audience: 'https://api.example.com' }, { redirectUri: 'https://ops.example.com/console', state: 's1', challenge: 'c1' }));
    expect(url.origin + url.pathname).toBe('https://id.example.com/oauth2/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      tenant: 'studio', response_type: 'code', client_id: 'console', redirect_uri: 'https://ops.example.com/console',
      scope: 'openid profile', state: 's1', code_challenge: 'c1', code_challenge_method: 'S256', audience: 'https://api.example.com',
    });
    expect(new URL(authorizationRequestUrl(oidc, { redirectUri: 'r', state: 's', challenge: 'c' })).searchParams.has('audience')).toBe(false);
  });

  it('reads the redirect back: the code when the state is this sign-in\'s, an error otherwise', () => {
    expect(readCallback('', 's1')).toEqual({ kind: 'none' });
    expect(readCallback('?code=abc&state=s1', 's1')).toEqual({ kind: 'code', code: 'abc' });
    expect(readCallback('?code=abc&state=other', 's1')).toMatchObject({ kind: 'error', message: expect.stringMatching(/state/) });
    expect(readCallback('?code=abc&state=s1', null)).toMatchObject({ kind: 'error' });
    expect(readCallback('?error=access_denied&error_description=no+admin&state=s1', 's1')).toEqual({ kind: 'error', message: 'the identity provider refused: no admin' });
  });

  it('redeems the code with the verifier, and takes the configured token field', () => {
    expect(Object.fromEntries(tokenRequestBody(oidc, 'abc', 'v'.repeat(43), 'https://ops/console'))).toEqual({
      grant_type: 'authorization_code', code: 'abc', redirect_uri: 'https://ops/console', client_id: 'console', code_verifier: 'v'.repeat(43),
    });
    expect(tokenFromResponse({ access_token: 'a.b.c', id_token: 'd.e.f' }, 'access_token')).toBe('a.b.c');
    expect(tokenFromResponse({ access_token: 'a.b.c', id_token: 'd.e.f' }, 'id_token')).toBe('d.e.f');
    expect(() => tokenFromResponse({ access_token: 'opaque' }, 'access_token')).toThrow(/no JWT/);
    expect(() => tokenFromResponse(null, 'access_token')).toThrow(/no JWT/);
  });
});

describe('a refused token request', () => {
  it('says the provider\'s error and description (RFC 6749 §5.2), or the status alone', () => {
    expect(tokenErrorMessage(400, { error: 'invalid_grant', error_description: 'redirect_uri mismatch' })).toBe('the token endpoint answered 400 (invalid_grant: redirect_uri mismatch)');
    expect(tokenErrorMessage(401, { error: 'invalid_client' })).toBe('the token endpoint answered 401 (invalid_client)');
    expect(tokenErrorMessage(502, undefined)).toBe('the token endpoint answered 502');
    expect(tokenErrorMessage(500, '<html>')).toBe('the token endpoint answered 500');
  });
});
