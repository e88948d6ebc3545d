import { render } from 'preact';
import { App } from './app.tsx';
import { completeOidc, storedToken, storeToken } from './auth/session.ts';
import type { OidcSettings } from './auth/pkce.ts';

interface ConsoleConfig {
  tokenSignIn: boolean;
  oidc: OidcSettings | null;
}

async function start(): Promise<void> {
  const config = (await (await fetch('/console/config.json')).json()) as ConsoleConfig;
  let message = '';
  if (config.oidc) {
    try {
      const token = await completeOidc(config.oidc);
      if (token) storeToken(token);
    } catch (error) {
      message = (error as Error).message;
    }
  }
  render(<App initialToken={storedToken()} tokenSignIn={config.tokenSignIn} oidc={config.oidc} initialMessage={message} />, document.getElementById('app')!);
}

void start();
