import { generateKeyPairSync } from 'node:crypto';
import { ConfigError } from '@gfts/platform';
import { describe, expect, it } from 'vitest';
import { acceptedAlgorithms, readGatewayConfig } from '../../src/config.ts';
import { identityFromClaims } from '../../src/authentication.ts';

const base = {
  FRIENDSHIP_URL: 'http://friendship:8081',
  TASKS_URL: 'http://tasks:8082',
  INTERNAL_TOKEN_SECRET: 'x'.repeat(32),
};
const PEM = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();

function problemsOf(env: Record<string, string>): string[] {
  try {
    readGatewayConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('gateway configuration', () => {
  it('applies defaults', () => {
    const config = readGatewayConfig({ ...base, JWT_SECRET: 's'.repeat(32) });
    expect(config).toMatchObject({ PORT: 8080, RATE_LIMIT_MAX: 600, BODY_LIMIT_BYTES: 16384, LOG_LEVEL: 'info' });
  });

  it('counts 10,000 gamers per window locally by default (RATE_LIMIT_LOCAL_KEYS_MAX), more when set, never under 100', () => {
    const secret = { ...base, JWT_SECRET: 's'.repeat(32) };
    expect(readGatewayConfig(secret).RATE_LIMIT_LOCAL_KEYS_MAX).toBe(10_000);
    expect(readGatewayConfig({ ...secret, RATE_LIMIT_LOCAL_KEYS_MAX: '50000' }).RATE_LIMIT_LOCAL_KEYS_MAX).toBe(50_000);
    expect(() => readGatewayConfig({ ...secret, RATE_LIMIT_LOCAL_KEYS_MAX: '10' })).toThrow(/RATE_LIMIT_LOCAL_KEYS_MAX/);
  });

  it('refuses an upstream timeout or a rate-limit window past what a timer takes (Node fires those at once)', () => {
    const secret = { ...base, JWT_SECRET: 's'.repeat(32) };
    expect(problemsOf({ ...secret, UPSTREAM_TIMEOUT_MS: '2147483648' })).toEqual([expect.stringMatching(/UPSTREAM_TIMEOUT_MS/)]);
    expect(problemsOf({ ...secret, RATE_LIMIT_WINDOW_MS: '2592000000' })).toEqual([expect.stringMatching(/RATE_LIMIT_WINDOW_MS/)]);
    expect(readGatewayConfig({ ...secret, UPSTREAM_TIMEOUT_MS: '900000' }).UPSTREAM_TIMEOUT_MS).toBe(900_000);
  });

  it('queues 4,096 connections by default (LISTEN_BACKLOG), and refuses a queue of none', () => {
    expect(readGatewayConfig({ ...base, JWT_SECRET: 's'.repeat(32) }).LISTEN_BACKLOG).toBe(4096);
    expect(readGatewayConfig({ ...base, JWT_SECRET: 's'.repeat(32), LISTEN_BACKLOG: '1024' }).LISTEN_BACKLOG).toBe(1024);
    expect(problemsOf({ ...base, JWT_SECRET: 's'.repeat(32), LISTEN_BACKLOG: '0' })).toEqual([expect.stringMatching(/LISTEN_BACKLOG/)]);
  });

  it('names every wrong or missing setting at once', () => {
    const problems = problemsOf({ PORT: 'eighty', FRIENDSHIP_URL: 'friendship', JWT_SECRET: 's'.repeat(32) });
    expect(problems.join('\n')).toMatch(/PORT/);
    expect(problems.join('\n')).toMatch(/FRIENDSHIP_URL/);
    expect(problems.join('\n')).toMatch(/TASKS_URL is required/);
    expect(problems.join('\n')).toMatch(/INTERNAL_TOKEN_SECRET is required/);
  });

  it('requires a verification key, and a secret alone', () => {
    expect(problemsOf(base)).toEqual([expect.stringMatching(/a verification key is required/)]);
    expect(problemsOf({ ...base, JWT_SECRET: 's'.repeat(32), JWT_PUBLIC_KEY: PEM })).toEqual([expect.stringMatching(/JWT_SECRET .* must be set alone/)]);
    expect(problemsOf({ ...base, JWT_SECRET: 's'.repeat(32), JWT_JWKS_URL: 'https://id.example/jwks.json' })).toEqual([expect.stringMatching(/must be set alone/)]);
  });

  it('takes a key set from a file or a URL, alone or next to a public key', () => {
    expect(problemsOf({ ...base, JWT_JWKS_FILE: '/etc/gfts/jwks.json' })).toEqual([]);
    expect(problemsOf({ ...base, JWT_JWKS_URL: 'https://id.example/jwks.json', JWT_PUBLIC_KEY: PEM })).toEqual([]);
    const config = readGatewayConfig({ ...base, JWT_JWKS_URL: 'https://id.example/jwks.json' });
    expect(config).toMatchObject({ JWT_JWKS_REFRESH_MS: 300_000, JWT_JWKS_TIMEOUT_MS: 5_000 });
  });

  it('names a wrong key set setting', () => {
    expect(problemsOf({ ...base, JWT_JWKS_FILE: '/a.json', JWT_JWKS_URL: 'https://id.example/jwks.json' })).toEqual([expect.stringMatching(/one of JWT_JWKS_FILE and JWT_JWKS_URL/)]);
    expect(problemsOf({ ...base, JWT_JWKS_URL: 'id.example/jwks.json' }).join()).toMatch(/JWT_JWKS_URL/);
    expect(problemsOf({ ...base, JWT_JWKS_URL: 'https://id.example/jwks.json', JWT_JWKS_REFRESH_MS: '10' }).join()).toMatch(/JWT_JWKS_REFRESH_MS/);
    expect(problemsOf({ ...base, JWT_JWKS_URL: 'https://id.example/jwks.json', JWT_JWKS_TIMEOUT_MS: 'soon' }).join()).toMatch(/JWT_JWKS_TIMEOUT_MS/);
    expect(problemsOf({ ...base, JWT_JWKS_URL: 'https://id.example/jwks.json', JWT_ALGORITHMS: 'HS256' })).toEqual([expect.stringMatching(/must not include HS256/)]);
  });

  it('names an unusable public key', () => {
    const truncated = '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----';
    expect(problemsOf({ ...base, JWT_PUBLIC_KEY: truncated })).toEqual([expect.stringMatching(/JWT_PUBLIC_KEY is unusable: not a readable PEM/)]);
    expect(problemsOf({ ...base, JWT_PUBLIC_KEY: PEM, JWT_ALGORITHMS: 'RS256' })).toEqual([expect.stringMatching(/JWT_PUBLIC_KEY is unusable: a key of type ec \(prime256v1\) verifies none of .*RS256/)]);
  });

  it('refuses a short HS256 secret', () => {
    expect(problemsOf({ ...base, JWT_SECRET: 'short' }).join()).toMatch(/JWT_SECRET/);
  });

  it('names a console OIDC endpoint that is not a URL, instead of failing at start without naming it', () => {
    const oidc = { CONSOLE_OIDC_AUTHORIZATION_URL: 'https://idp.example.com/authorize', CONSOLE_OIDC_TOKEN_URL: 'https://idp.example.com/token', CONSOLE_OIDC_CLIENT_ID: 'console' };
    expect(problemsOf({ ...base, JWT_SECRET: 'y'.repeat(32), ...oidc })).toEqual([]);
    expect(problemsOf({ ...base, JWT_SECRET: 'y'.repeat(32), ...oidc, CONSOLE_OIDC_TOKEN_URL: 'https://idp.example.com:80443/token', CONSOLE_OIDC_AUTHORIZATION_URL: 'https://' })).toEqual([
      'CONSOLE_OIDC_AUTHORIZATION_URL is not a URL (got "https://")',
      'CONSOLE_OIDC_TOKEN_URL is not a URL (got "https://idp.example.com:80443/token")',
    ]);
  });

  it('refuses the players\' token secret as the internal assertion secret', () => {
    expect(problemsOf({ ...base, JWT_SECRET: base.INTERNAL_TOKEN_SECRET })).toEqual(['JWT_SECRET and INTERNAL_TOKEN_SECRET must differ']);
  });

  it('never pairs a public key with HMAC (algorithm confusion)', () => {
    expect(problemsOf({ ...base, JWT_PUBLIC_KEY: PEM, JWT_ALGORITHMS: 'HS256,RS256' }).join()).toMatch(/must not include HS256/);
    expect(acceptedAlgorithms({ JWT_SECRET: undefined, JWT_ALGORITHMS: undefined })).toEqual(['RS256', 'ES256']);
    expect(acceptedAlgorithms({ JWT_SECRET: 's', JWT_ALGORITHMS: undefined })).toEqual(['HS256']);
  });

  it('shares rate limits through NATS when the gateway has NATS_URL, else limits per replica', () => {
    const secret = { ...base, JWT_SECRET: 's'.repeat(32) };
    expect(readGatewayConfig(secret).RATE_LIMIT_STORE).toBe('local');
    expect(readGatewayConfig({ ...secret, NATS_URL: 'nats://nats:4222' }).RATE_LIMIT_STORE).toBe('nats');
    expect(readGatewayConfig({ ...secret, NATS_URL: 'nats://nats:4222', RATE_LIMIT_STORE: 'local' }).RATE_LIMIT_STORE).toBe('local');
    expect(problemsOf({ ...secret, RATE_LIMIT_STORE: 'nats' })).toEqual([expect.stringMatching(/RATE_LIMIT_STORE=nats needs NATS_URL/)]);
    expect(problemsOf({ ...secret, RATE_LIMIT_STORE: 'redis' }).join()).toMatch(/RATE_LIMIT_STORE/);
  });

  it('connects to NATS as a user only with both NATS_USER and NATS_PASSWORD', () => {
    const nats = { ...base, JWT_SECRET: 's'.repeat(32), NATS_URL: 'nats://nats:4222' };
    expect(readGatewayConfig({ ...nats, NATS_USER: 'gateway', NATS_PASSWORD: 'p' })).toMatchObject({ NATS_USER: 'gateway', NATS_PASSWORD: 'p' });
    expect(problemsOf({ ...nats, NATS_USER: 'gateway' })).toEqual(['NATS_USER and NATS_PASSWORD must be set together']);
    expect(problemsOf({ ...nats, NATS_PASSWORD: 'p' })).toEqual(['NATS_USER and NATS_PASSWORD must be set together']);
  });

  it('refuses algorithms outside the known list, such as none', () => {
    expect(problemsOf({ ...base, JWT_SECRET: 's'.repeat(32), JWT_ALGORITHMS: 'none' }).join()).toMatch(/JWT_ALGORITHMS/);
  });
});

describe('identity from token claims', () => {
  const sub = '0190d7c4-7c4a-7000-8000-000000000001';
  const app = '0190d7c4-7c4a-7000-8000-000000000002';

  it('maps sub, app, name, picture and known roles', () => {
    expect(identityFromClaims({ sub, app, exp: 1, name: 'Ann', picture: 'https://a/p.png', roles: ['admin', 'root'] })).toEqual({
      gamerId: sub, applicationId: app, displayName: 'Ann', avatar: 'https://a/p.png', roles: ['admin'],
    });
  });

  it('reads profile claims and roles leniently: a long name is cut, a long picture, odd roles and wrong types ignored', () => {
    const long = 'Ä'.repeat(70);
    expect(identityFromClaims({ sub, app, exp: 1, name: long, picture: `https://a/${'p'.repeat(2048)}`, roles: ['https://idp.example/roles/admin', 'admin', 7] })).toEqual({
      gamerId: sub, applicationId: app, displayName: 'Ä'.repeat(64), roles: ['admin'],
    });
    expect(identityFromClaims({ sub, app, exp: 1, name: 42, picture: null, roles: 'admin' })).toEqual({ gamerId: sub, applicationId: app, roles: [] });
    expect(identityFromClaims({ sub, app, exp: 1, roles: Array.from({ length: 40 }, () => 'server') })).toMatchObject({ roles: ['server'] });
  });

  it('rejects claims that are not UUIDs', () => {
    expect(identityFromClaims({ sub: 'admin', app, exp: 1 })).toBeUndefined();
    expect(identityFromClaims({ sub, app: { $ne: null }, exp: 1 })).toBeUndefined();
  });
});
