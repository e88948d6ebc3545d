import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { authFile, expectedNatsAuth, natsAuthTargets } from '../../scripts/nats-auth-targets.ts';
import { gameServerPermissions, gatewayPermissions, parseGameServerList, renderNatsAuthorization, tasksPermissions } from '../../src/nats-permissions.ts';
import { natsNames } from '../../src/subjects.ts';

describe('NATS users and permissions', () => {
  // The server configuration is generated from the subject names; a hand edit, or a
  // subject renamed without regenerating, fails here.
  it.each(natsAuthTargets)('$dir/nats-auth.conf matches libs/contracts and its game-server list', (target) => {
    expect(readFileSync(authFile(target.dir), 'utf8'), 'run: node libs/contracts/scripts/write-nats-auth.ts').toBe(expectedNatsAuth(target));
  });

  it('lets a game server publish to its own stats subject only', () => {
    const names = natsNames('gfts');
    const p = gameServerPermissions('gfts', 'app-1');
    expect(p.publish).toEqual([names.statsSubject('app-1')]);
    expect(p.subscribe).toEqual(['_INBOX_gs-app-1.>']);
  });

  it('scopes the tasks JetStream API calls to its two streams and its consumer', () => {
    const names = natsNames('gfts');
    const api = tasksPermissions('gfts').publish.filter((s) => s.startsWith('$JS.'));
    for (const subject of api) {
      expect(subject === '$JS.API.INFO' || subject.includes(`.${names.statsStream}`), subject).toBe(true);
    }
    expect(api.some((s) => s.endsWith('.>') && !s.includes(names.statsConsumer))).toBe(false);
  });

  it('gives the gateway its rate-limit bucket of one window length, by exact name', () => {
    const p = gatewayPermissions(60_000);
    for (const subject of p.publish) {
      expect(subject === '$JS.API.INFO' || subject.includes('gateway_rate_limit_60000'), subject).toBe(true);
      // a wildcard inside a token is a literal to NATS: it would silently match nothing
      expect(subject.split('.').every((token) => token === '>' || token === '*' || !/[*>]/.test(token)), subject).toBe(true);
    }
    expect(p.subscribe).toEqual(['_INBOX_gateway.>']);
    expect(() => gatewayPermissions(0)).toThrow(/not a rate-limit window/);
  });

  it('refuses an application id that would widen a subject', () => {
    expect(() => renderNatsAuthorization('gfts', ['*'], 60_000)).toThrow(/not an application id/);
    expect(() => renderNatsAuthorization('gfts', ['a.b'], 60_000)).toThrow(/not an application id/);
  });

  it('reads one application id a line, ignoring comments and blank lines', () => {
    expect(parseGameServerList('# studio A\nabc-1\n\n  def-2  # studio B\n')).toEqual(['abc-1', 'def-2']);
  });
});
