import { render } from 'preact';
import { App } from './app.tsx';
import { readClaims } from './auth/claims.ts';
import { completeOidc, storedToken, storeToken } from './auth/session.ts';
import type { OidcSettings } from './auth/pkce.ts';

interface ConsoleConfig {
  tokenSignIn: boolean;
  oidc: OidcSettings | null;
}

async function loadConfig(): Promise<ConsoleConfig> {
  const response = await fetch('/console/config.json');
  if (!response.ok) throw new Error(`the gateway answered ${response.status}`);
  return (await response.json()) as ConsoleConfig;
}

/** Without its settings the console cannot offer a sign-in: it says so, and tries again on demand. */
function ConfigFailed({ reason }: { reason: string }) {
  return (
    <main class="sign-in" id="main">
      <h1>gamer-services console</h1>
      <p class="problem" role="alert">The console could not load its settings ({reason}).</p>
      <button type="button" class="primary" onClick={() => void start()}>Retry</button>
    </main>
  );
}

async function start(): Promise<void> {
  const root = document.getElementById('app')!;
  let config: ConsoleConfig;
  try {
    config = await loadConfig();
  } catch (error) {
    render(<ConfigFailed reason={(error as Error).message} />, root);
    return;
  }
  let message = '';
  if (config.oidc) {
    try {
      const token = await completeOidc(config.oidc);
      // the same checks as a pasted token: one the console cannot use is not kept, and the sign-in says why
      const read = token ? readClaims(token) : null;
      if (read?.ok) storeToken(token);
      else if (read) message = `The identity provider's token cannot be used: ${read.reason}.`;
    } catch (error) {
      message = (error as Error).message;
    }
  }
  // a stored token the console can no longer use (expired since) is dropped, and the sign-in says why
  const stored = storedToken();
  const storedRead = stored ? readClaims(stored) : null;
  if (storedRead && !storedRead.ok) {
    storeToken(null);
    message ||= `Signed out: ${storedRead.reason}.`;
  }
  render(<App initialToken={storedToken()} tokenSignIn={config.tokenSignIn} oidc={config.oidc} initialMessage={message} />, root);
}

void start();
