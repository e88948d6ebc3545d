import { useState } from 'preact/hooks';
import { readClaims } from '../auth/claims.ts';
import type { OidcSettings } from '../auth/pkce.ts';
import { beginOidc } from '../auth/session.ts';

/** Sign in: the studio's identity provider (OIDC, PKCE) when configured, or a pasted admin token. */
export function SignInPage({ tokenSignIn, oidc, message, onToken }: { tokenSignIn: boolean; oidc: OidcSettings | null; message: string; onToken: (token: string) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    const read = readClaims(token);
    if (!read.ok) return setError(read.reason);
    onToken(token.trim());
  };
  return (
    <main class="sign-in" id="main">
      <h1>gamer-services console</h1>
      {message && <p class="problem" role="alert">{message}</p>}
      {oidc && (
        <section aria-labelledby="oidc-heading">
          <h2 id="oidc-heading">Studio sign-in</h2>
          <button type="button" class="primary" onClick={() => void beginOidc(oidc).catch((e) => setError((e as Error).message))}>Sign in with your identity provider</button>
        </section>
      )}
      {tokenSignIn && (
        <section aria-labelledby="token-heading">
          <h2 id="token-heading">Bearer token</h2>
          <p class="muted">A JWT with the <code>admin</code> role (development: <code>node scripts/mint-token.mjs --roles admin</code>). It stays in this tab only.</p>
          <form onSubmit={submit}>
            <label>Admin token <textarea rows={4} value={token} onInput={(e) => setToken(e.currentTarget.value)} spellcheck={false} autocomplete="off" /></label>
            <button type="submit" class="primary">Sign in</button>
          </form>
        </section>
      )}
      {error && <p class="problem" role="alert">{error}</p>}
    </main>
  );
}
