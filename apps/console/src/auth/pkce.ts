/**
 * The pure parts of the OIDC authorization-code flow with PKCE (RFC 7636), for a public
 * client in the browser: no client secret; a fresh verifier and state per sign-in, kept in
 * sessionStorage until the provider redirects back. Web Crypto only (browsers, Node 24).
 */

export interface OidcSettings {
  authorizationUrl: string;
  tokenUrl: string;
  clientId: string;
  scope: string;
  audience: string | null;
  tokenField: 'access_token' | 'id_token';
}

/** Base64url without padding (RFC 4648 section 5), as PKCE and JWTs use it. */
export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A code verifier: 32 random bytes, 43 characters of the unreserved set (RFC 7636 4.1). */
export function randomVerifier(random: (bytes: Uint8Array<ArrayBuffer>) => Uint8Array = (b) => crypto.getRandomValues(b)): string {
  return base64url(random(new Uint8Array(32)));
}

/** S256 code challenge: base64url(SHA-256(ASCII(verifier))) (RFC 7636 4.2). */
export async function codeChallenge(verifier: string): Promise<string> {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) throw new Error('a code verifier is 43-128 unreserved characters');
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** The URL the browser is sent to, to sign in at the identity provider. */
export function authorizationRequestUrl(oidc: OidcSettings, request: { redirectUri: string; state: string; challenge: string }): string {
  const url = new URL(oidc.authorizationUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', oidc.clientId);
  url.searchParams.set('redirect_uri', request.redirectUri);
  url.searchParams.set('scope', oidc.scope);
  url.searchParams.set('state', request.state);
  url.searchParams.set('code_challenge', request.challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  if (oidc.audience) url.searchParams.set('audience', oidc.audience);
  return url.toString();
}

export type CallbackOutcome =
  | { kind: 'none' }
  | { kind: 'code'; code: string }
  | { kind: 'error'; message: string };

/**
 * What the provider's redirect carries. A state other than the one this tab stored is
 * refused: the response belongs to another sign-in (or to an attacker's login CSRF).
 */
export function readCallback(search: string, expectedState: string | null): CallbackOutcome {
  const params = new URLSearchParams(search);
  const code = params.get('code');
  const error = params.get('error');
  if (!code && !error) return { kind: 'none' };
  if (!expectedState || params.get('state') !== expectedState) return { kind: 'error', message: 'the sign-in response does not match this sign-in (state); start again' };
  if (error) return { kind: 'error', message: `the identity provider refused: ${params.get('error_description') ?? error}` };
  return { kind: 'code', code: code! };
}

/** The token request body (application/x-www-form-urlencoded) that redeems the code. */
export function tokenRequestBody(oidc: OidcSettings, code: string, verifier: string, redirectUri: string): URLSearchParams {
  return new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: oidc.clientId, code_verifier: verifier });
}

/** The token the API is called with, from the token response. */
export function tokenFromResponse(body: unknown, field: OidcSettings['tokenField']): string {
  const token = (body as Record<string, unknown> | null)?.[field];
  if (typeof token !== 'string' || token.split('.').length !== 3) throw new Error(`the token response has no JWT in ${field}`);
  return token;
}

/**
 * What a refused token request says (RFC 6749 §5.2): the status, and the provider's `error`
 * and `error_description` when its body has them (a misconfigured redirect URI or client is
 * told there, not by the status).
 */
export function tokenErrorMessage(status: number, body: unknown): string {
  const { error, error_description: description } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const said = [error, description].filter((part): part is string => typeof part === 'string' && part !== '').join(': ');
  return `the token endpoint answered ${status}${said ? ` (${said})` : ''}`;
}
