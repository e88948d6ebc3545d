import { authorizationRequestUrl, codeChallenge, randomVerifier, readCallback, tokenErrorMessage, tokenFromResponse, tokenRequestBody, type OidcSettings } from './pkce.ts';

// sessionStorage: the token lives as long as this tab, never in localStorage or a cookie.
const TOKEN_KEY = 'gfts-console-token';
const FLOW_KEY = 'gfts-console-oidc';

export const redirectUri = () => `${location.origin}/console`;

export function storedToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function storeToken(token: string | null): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** Starts a sign-in at the identity provider: a fresh verifier and state, then the redirect. */
export async function beginOidc(oidc: OidcSettings): Promise<void> {
  const verifier = randomVerifier();
  const state = randomVerifier();
  sessionStorage.setItem(FLOW_KEY, JSON.stringify({ verifier, state }));
  location.assign(authorizationRequestUrl(oidc, { redirectUri: redirectUri(), state, challenge: await codeChallenge(verifier) }));
}

/**
 * On the provider's redirect back: checks the state, redeems the code with the verifier and
 * answers the token; null when this page load is no redirect. The code leaves the address bar.
 */
export async function completeOidc(oidc: OidcSettings): Promise<string | null> {
  const flow = JSON.parse(sessionStorage.getItem(FLOW_KEY) ?? 'null') as { verifier: string; state: string } | null;
  const outcome = readCallback(location.search, flow?.state ?? null);
  if (outcome.kind === 'none') return null;
  sessionStorage.removeItem(FLOW_KEY);
  history.replaceState(null, '', `${location.pathname}${location.hash}`);
  if (outcome.kind === 'error') throw new Error(outcome.message);
  const response = await fetch(oidc.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: tokenRequestBody(oidc, outcome.code, flow!.verifier, redirectUri()),
  });
  if (!response.ok) throw new Error(tokenErrorMessage(response.status, await response.json().catch(() => undefined)));
  return tokenFromResponse(await response.json(), oidc.tokenField);
}
