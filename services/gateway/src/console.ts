import { consoleRoutes, ErrorCode, type ConsoleConfig } from '@gfts/contracts';
import { AppError, notFound } from '@gfts/platform';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GatewayConfig } from './config.ts';

/** Where `pnpm build` puts the console, in this checkout and in the gateway image alike. */
const BUILT_CONSOLE = fileURLToPath(new URL('../../../apps/console/dist', import.meta.url));

const MEDIA_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

interface Asset {
  body: Buffer;
  type: string;
}

/** The built console held in memory: index.html and every file of assets/ (a few hundred kB). */
function loadConsole(dir: string): { index: Buffer; assets: Map<string, Asset> } | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const assets = new Map<string, Asset>();
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const file of readdirSync(assetDir)) {
      const type = MEDIA_TYPES[extname(file)];
      if (type) assets.set(file, { body: readFileSync(join(assetDir, file)), type });
    }
  }
  return { index: readFileSync(join(dir, 'index.html')), assets };
}

/** The console's settings from the gateway's configuration; nothing secret (PKCE needs no client secret). */
export function consoleConfig(config: GatewayConfig): ConsoleConfig {
  const oidc = config.CONSOLE_OIDC_AUTHORIZATION_URL && config.CONSOLE_OIDC_TOKEN_URL && config.CONSOLE_OIDC_CLIENT_ID
    ? {
        authorizationUrl: config.CONSOLE_OIDC_AUTHORIZATION_URL,
        tokenUrl: config.CONSOLE_OIDC_TOKEN_URL,
        clientId: config.CONSOLE_OIDC_CLIENT_ID,
        scope: config.CONSOLE_OIDC_SCOPE,
        audience: config.CONSOLE_OIDC_AUDIENCE ?? null,
        tokenField: config.CONSOLE_OIDC_TOKEN_FIELD,
      }
    : null;
  return { tokenSignIn: config.CONSOLE_TOKEN_SIGN_IN, oidc };
}

/**
 * Content-Security-Policy of the console: its own scripts and styles only (no inline code,
 * no eval), data from its own origin, plus the identity provider's token endpoint when OIDC
 * is on; never framed; no forms, no base element, no plugins.
 */
export function consoleContentSecurityPolicy(settings: ConsoleConfig): string {
  const connect = ["'self'", ...(settings.oidc ? [new URL(settings.oidc.tokenUrl).origin] : [])];
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect.join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

function secure(reply: FastifyReply, csp: string): FastifyReply {
  return reply
    .header('content-security-policy', csp)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('cross-origin-resource-policy', 'same-origin')
    .header('permissions-policy', 'camera=(), microphone=(), geolocation=(), payment=()');
}

/** GET /console, its assets and settings: static, public, with the security headers above. */
export async function consolePlugin(parent: FastifyInstance, { config }: { config: GatewayConfig }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const settings = consoleConfig(config);
  const csp = consoleContentSecurityPolicy(settings);
  const built = config.CONSOLE_ENABLED ? loadConsole(config.CONSOLE_DIR ?? BUILT_CONSOLE) : undefined;
  if (config.CONSOLE_ENABLED && !built) app.log.warn({ dir: config.CONSOLE_DIR ?? BUILT_CONSOLE }, 'no built console: /console answers 404 (run pnpm build)');
  // the application's own security headers on errors too (a 404 of a missing asset)
  app.addHook('onSend', async (_request, reply) => void secure(reply, csp));

  app.route({
    ...consoleRoutes.page,
    logLevel: 'warn',
    handler: async (_request, reply) => {
      if (!built) throw new AppError(404, ErrorCode.NOT_FOUND, config.CONSOLE_ENABLED ? 'the console is not built on this gateway (pnpm build)' : 'the console is off on this gateway (CONSOLE_ENABLED)');
      return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(built.index as unknown as string); // bytes as read: Fastify sends a Buffer unserialized
    },
  });
  app.route({
    ...consoleRoutes.config,
    logLevel: 'warn',
    handler: async (_request, reply) => {
      // with the page: a console that is off answers 404 for all of it (until 2026-11-28 its settings still 200)
      if (!config.CONSOLE_ENABLED) throw new AppError(404, ErrorCode.NOT_FOUND, 'the console is off on this gateway (CONSOLE_ENABLED)');
      return reply.header('cache-control', 'no-store').send(settings);
    },
  });
  app.route({
    ...consoleRoutes.asset,
    logLevel: 'warn',
    handler: async (request, reply) => {
      const asset = built?.assets.get(request.params.file);
      if (!asset) throw notFound('no such console asset');
      // file names carry a content hash: a new build has new names
      return reply.header('cache-control', 'public, max-age=31536000, immutable').type(asset.type).send(asset.body as unknown as string);
    },
  });
}
