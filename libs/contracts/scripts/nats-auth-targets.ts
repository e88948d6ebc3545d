import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseGameServerList, renderNatsAuthorization } from '../src/nats-permissions.ts';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Where a nats-auth.conf lives, with the NATS_PREFIX its services run with (the config
 * file cannot read the prefix from the services' settings, so it is fixed here).
 */
export const natsAuthTargets = [
  { dir: 'deploy/compose', prefix: 'gfts' },
  { dir: 'deploy/helm/gfts/files', prefix: 'gfts' },
] as const;

export const authFile = (dir: string) => `${repo}${dir}/nats-auth.conf`;

/** The nats-auth.conf a target should hold: contracts' permissions and its game-server list. */
export function expectedNatsAuth(target: { dir: string; prefix: string }): string {
  const list = readFileSync(`${repo}${target.dir}/nats-game-servers.txt`, 'utf8');
  return renderNatsAuthorization(target.prefix, parseGameServerList(list));
}
