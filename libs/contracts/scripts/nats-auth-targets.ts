import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseGameServerList, renderNatsAuthorization } from '../src/nats-permissions.ts';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Where a nats-auth.conf lives, with the NATS_PREFIX its services run with and the
 * gateway's RATE_LIMIT_WINDOW_MS (its KV bucket is named after it). The config file cannot
 * read either from the services' settings, so they are fixed here; deploy/tools/
 * check_deploy.py checks that the deployments run with the same values.
 */
export const natsAuthTargets = [
  { dir: 'deploy/compose', prefix: 'gfts', rateLimitWindowMs: 60_000 },
  { dir: 'deploy/helm/gfts/files', prefix: 'gfts', rateLimitWindowMs: 60_000 },
] as const;

export const authFile = (dir: string) => `${repo}${dir}/nats-auth.conf`;

/** The nats-auth.conf a target should hold: contracts' permissions and its game-server list. */
export function expectedNatsAuth(target: { dir: string; prefix: string; rateLimitWindowMs: number }): string {
  const list = readFileSync(`${repo}${target.dir}/nats-game-servers.txt`, 'utf8');
  return renderNatsAuthorization(target.prefix, parseGameServerList(list), target.rateLimitWindowMs);
}
