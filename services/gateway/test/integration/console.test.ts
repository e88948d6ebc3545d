import type { ConsoleConfig } from '@gfts/contracts';
import { listen, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, testLogLevel } from '@gfts/testkit';
import type { FastifyInstance } from 'fastify';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway } from '../../src/app.ts';
import { readGatewayConfig } from '../../src/config.ts';

const base = { FRIENDSHIP_URL: 'http://127.0.0.1:9', TASKS_URL: 'http://127.0.0.1:9', JWT_SECRET: TEST_JWT_SECRET, INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: testLogLevel() };

describe('the gateway serves the console at /console', () => {
  let dir: string;
  let gateway: FastifyInstance;
  let url: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gfts-console-dist-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title><script type="module" src="/console/assets/app-1.js"></script>');
    writeFileSync(join(dir, 'assets', 'app-1.js'), 'console.log(1)');
    gateway = await buildGateway(readGatewayConfig({
      ...base, CONSOLE_DIR: dir,
      CONSOLE_OIDC_AUTHORIZATION_URL: 'https://id.example.com/authorize', CONSOLE_OIDC_TOKEN_URL: 'https://login.example.com/token', CONSOLE_OIDC_CLIENT_ID: 'console',
    }));
    url = await listen(gateway);
  });
  afterAll(async () => {
    await gateway?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the page and its assets without a token, with a strict CSP and security headers', async () => {
    const page = await fetch(`${url}/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('/console/assets/app-1.js');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp.split('; ')).toEqual(expect.arrayContaining([
      "default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self' https://login.example.com", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'",
    ]));
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');

    // the trailing slash is the same page (every server ignores a trailing slash; its assets' paths are absolute)
    const slash = await fetch(`${url}/console/`, { redirect: 'manual' });
    expect(slash.status).toBe(200);
    expect(await slash.text()).toBe(await (await fetch(`${url}/console`)).text());

    const script = await fetch(`${url}/console/assets/app-1.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.headers.get('cache-control')).toContain('immutable');
    expect(await script.text()).toBe('console.log(1)');

    const missing = await fetch(`${url}/console/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-security-policy')).toBe(csp);
    expect((await fetch(`${url}/console/assets/..%2Findex.html`)).status).toBe(400);
    // the API keeps its own answers: no console headers there
    expect((await fetch(`${url}/healthz`)).headers.get('content-security-policy')).toBeNull();
  });

  it('tells the page how to sign in, and nothing secret', async () => {
    const response = await fetch(`${url}/console/config.json`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      tokenSignIn: true,
      oidc: { authorizationUrl: 'https://id.example.com/authorize', tokenUrl: 'https://login.example.com/token', clientId: 'console', scope: 'openid', audience: null, tokenField: 'access_token' },
    } satisfies ConsoleConfig);
  });

  it('answers 404 for the page when no console is built, and refuses a partial OIDC configuration', async () => {
    const bare = await buildGateway(readGatewayConfig({ ...base, CONSOLE_DIR: join(dir, 'nothing-built-here'), CONSOLE_TOKEN_SIGN_IN: 'false' }));
    try {
      const address = await listen(bare);
      const page = await fetch(`${address}/console`);
      expect(page.status).toBe(404);
      expect(((await page.json()) as { detail: string }).detail).toMatch(/not built/);
      expect(await (await fetch(`${address}/console/config.json`)).json()).toEqual({ tokenSignIn: false, oidc: null });
    } finally {
      await bare.close();
    }
    const off = await buildGateway(readGatewayConfig({ ...base, CONSOLE_DIR: dir, CONSOLE_ENABLED: 'false' }));
    try {
      const offUrl = await listen(off);
      const page = await fetch(`${offUrl}/console`);
      expect(page.status).toBe(404);
      expect(((await page.json()) as { detail: string }).detail).toMatch(/CONSOLE_ENABLED/);
      // its settings too (200 until 2026-11-28)
      expect((await fetch(`${offUrl}/console/config.json`)).status).toBe(404);
    } finally {
      await off.close();
    }
    expect(() => readGatewayConfig({ ...base, CONSOLE_OIDC_CLIENT_ID: 'console' })).toThrow(/CONSOLE_OIDC_AUTHORIZATION_URL, CONSOLE_OIDC_TOKEN_URL and CONSOLE_OIDC_CLIENT_ID/);
  });
});
