import { useEffect, useMemo, useState } from 'preact/hooks';
import { createApi } from './api/client.ts';
import { readClaims } from './auth/claims.ts';
import type { OidcSettings } from './auth/pkce.ts';
import { storeToken } from './auth/session.ts';
import { CatalogPage } from './pages/catalog.tsx';
import { DeadLettersPage } from './pages/dead-letters.tsx';
import { GamerPage } from './pages/gamer.tsx';
import { HealthPage } from './pages/health.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import type { Session } from './session.ts';

const PAGES = [
  { path: 'catalog', label: 'Catalog' },
  { path: 'gamer', label: 'Gamer' },
  { path: 'dead-letters', label: 'Dead letters' },
  { path: 'health', label: 'Health' },
] as const;

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const update = () => setHash(location.hash);
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return hash;
}

export function App({ initialToken, tokenSignIn, oidc, initialMessage }: { initialToken: string | null; tokenSignIn: boolean; oidc: OidcSettings | null; initialMessage: string }) {
  const [token, setToken] = useState<string | null>(() => (initialToken && readClaims(initialToken).ok ? initialToken : null));
  const [message, setMessage] = useState(initialMessage);
  const hash = useHash();
  const signIn = (next: string | null, why = '') => {
    storeToken(next);
    setToken(next);
    setMessage(why);
  };
  const session = useMemo<Session | null>(() => {
    if (!token) return null;
    const read = readClaims(token);
    if (!read.ok) return null;
    return { claims: read.claims, api: createApi(() => token, () => signIn(null, 'The API refused the token (expired or invalid); sign in again.')) };
  }, [token]);

  if (!session) return <SignInPage tokenSignIn={tokenSignIn} oidc={oidc} message={message} onToken={(t) => signIn(t)} />;
  const [, page = 'catalog', param] = hash.split('/');
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
      <header class="top">
        <span class="brand">gamer-services console</span>
        <nav aria-label="Console pages">
          <ul>
            {PAGES.map((p) => <li key={p.path}><a href={`#/${p.path}`} aria-current={page === p.path ? 'page' : undefined}>{p.label}</a></li>)}
          </ul>
        </nav>
        <span class="who">
          {session.claims.name ?? session.claims.sub.slice(0, 8)} · app <code>{session.claims.app.slice(0, 8)}</code>
          <button type="button" onClick={() => signIn(null)}>Sign out</button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        {page === 'gamer' ? <GamerPage session={session} gamerId={param} />
          : page === 'dead-letters' ? <DeadLettersPage session={session} />
          : page === 'health' ? <HealthPage session={session} />
          : <CatalogPage session={session} />}
      </main>
    </>
  );
}
