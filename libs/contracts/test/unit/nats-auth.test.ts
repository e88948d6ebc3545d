import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { authFile, expectedNatsAuth, natsAuthTargets } from '../../scripts/nats-auth-targets.ts';
import { friendshipPermissions, gameServerPermissions, gatewayPermissions, notificationsPermissions, parseGameServerList, renderNatsAuthorization, tasksPermissions } from '../../src/nats-permissions.ts';
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

  it('scopes the tasks JetStream API calls to its three streams and its consumers', () => {
    const names = natsNames('gfts');
    const api = tasksPermissions('gfts').publish.filter((s) => s.startsWith('$JS.'));
    expect(api.length).toBeGreaterThan(5);
    for (const subject of api) {
      expect(subject === '$JS.API.INFO' || subject.includes(`.${names.statsStream}`) || subject.includes(`.${names.gamersStream}.`) || subject.endsWith(`.${names.gamersStream}`), subject).toBe(true);
    }
    const consumers = [names.statsConsumer, names.gamerErasedConsumer('tasks'), names.erasureProgressConsumer];
    expect(api.filter((s) => s.endsWith('.>') && !consumers.some((c) => s.includes(`.${c}.`)))).toEqual([]);
  });

  it('gives friendship its own consumer of gamer.erased and nothing of the tasks service\'s', () => {
    const names = natsNames('gfts');
    const p = friendshipPermissions('gfts');
    expect(p.publish).toContain(names.gamerErasureCompleted);
    expect(p.publish).not.toContain(names.gamerErased);
    // its consumers: its own durable on the GAMERS stream, and the presence watch's ordered consumer
    const foreign = p.publish.filter((s) => s.includes('CONSUMER') && !s.includes(names.gamerErasedConsumer('friendship')) && !s.includes(`.${names.presenceStream}.`));
    expect(foreign).toEqual([]);
    // presence announcements: its own bucket's keys and the settled-change subject; it writes no presence itself
    expect(p.publish).toContain(names.presenceChanged);
    expect(p.publish.filter((s) => s.startsWith('$KV.'))).toEqual([`$KV.${names.presenceAnnouncedBucket}.>`]);
    // direct gets: its announced records, and the presence bucket's keys (the sweep's look at an overdue heartbeat); it puts none there
    expect(p.publish.filter((s) => s.includes('DIRECT.GET')).sort()).toEqual([`$JS.API.DIRECT.GET.${names.presenceAnnouncedStream}.>`, `$JS.API.DIRECT.GET.${names.presenceStream}.>`].sort());
    expect(p.publish.some((s) => s.includes(names.statsStream) || s.includes(names.erasureProgressConsumer))).toBe(false);
    // the presence bucket: created, watched, and purged of a stopped notifications replica's keys; no other stream purged
    expect(p.publish.filter((s) => s.includes('.PURGE.'))).toEqual([`$JS.API.STREAM.PURGE.${names.presenceStream}`]);
    expect(p.subscribe).toContain('_INBOX_friendship.>');
    // each replica hears finished erasures, to drop its cached registration and profile
    expect(p.subscribe).toContain(names.gamerErasureCompleted);
    expect(p.subscribe).not.toContain(names.gamerErased);
  });

  it('gives the gateway its rate-limit bucket of one window length, by exact name, and nothing of presence', () => {
    const p = gatewayPermissions(60_000);
    expect(p.publish.filter((s) => s.includes('presence'))).toEqual([]);
    for (const subject of p.publish) {
      expect(subject === '$JS.API.INFO' || subject.includes('gateway_rate_limit_60000'), subject).toBe(true);
      // a wildcard inside a token is a literal to NATS: it would silently match nothing
      expect(subject.split('.').every((token) => token === '>' || token === '*' || !/[*>]/.test(token)), subject).toBe(true);
    }
    // its inbox, and JetStream's word that its bucket was deleted (bound again at once)
    expect(p.subscribe).toEqual(['_INBOX_gateway.>', '$JS.EVENT.ADVISORY.STREAM.DELETED.KV_gateway_rate_limit_60000']);
    expect(() => gatewayPermissions(0)).toThrow(/not a rate-limit window/);
  });

  it('gives notifications presence writes, its own consumer of gamer.erased, and the events it turns into notifications', () => {
    const names = natsNames('gfts');
    const p = notificationsPermissions('gfts');
    // presence: look the bucket up, put or delete keys and read one back; never create, consume, purge or delete the bucket
    expect(p.publish.filter((s) => s.includes('presence'))).toEqual(['$JS.API.STREAM.INFO.KV_gfts_presence_holds', '$KV.gfts_presence_holds.>', '$JS.API.DIRECT.GET.KV_gfts_presence_holds.>']);
    // erasure: its own durable and its completion report, never the request itself or another service's consumer
    expect(p.publish).toContain(names.gamerErasureCompleted);
    expect(p.publish).not.toContain(names.gamerErased);
    expect(p.publish.filter((s) => s.includes('CONSUMER') && !s.includes(`.${names.gamerErasedConsumer('notifications')}`))).toEqual([]);
    expect(p.publish.filter((s) => s.includes('STREAM.') && !s.endsWith(`.${names.gamersStream}`) && !s.endsWith(`.${names.presenceStream}`))).toEqual([]);
    expect(p.publish.filter((s) => !s.startsWith('$') && s !== names.notifyAll && s !== names.gamerErasureCompleted)).toEqual([]);
    expect(p.subscribe.sort()).toEqual([
      names.friendshipEvents, names.taskCompleted, names.taskProgress, names.inventoryGranted, names.presenceChanged, names.notifyAll, '_INBOX_notifications.>',
      // the other services' erasure reports (followErasureReports)
      names.gamerErasureCompleted,
    ].sort());
  });

  it('refuses an application id that would widen a subject', () => {
    expect(() => renderNatsAuthorization('gfts', ['*'], 60_000)).toThrow(/not an application id/);
    expect(() => renderNatsAuthorization('gfts', ['a.b'], 60_000)).toThrow(/not an application id/);
  });

  it('reads one application id a line, ignoring comments and blank lines', () => {
    expect(parseGameServerList('# studio A\nabc-1\n\n  def-2  # studio B\n')).toEqual(['abc-1', 'def-2']);
  });
});
