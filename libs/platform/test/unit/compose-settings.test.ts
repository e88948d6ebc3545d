import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { readFriendshipConfig } from '../../../../services/friendship/src/config.ts';
import { readGatewayConfig } from '../../../../services/gateway/src/config.ts';
import { readNotificationsConfig } from '../../../../services/notifications/src/config.ts';
import { readTasksConfig } from '../../../../services/tasks/src/config.ts';
import { presenceHeartbeatProblems } from '../../src/config.ts';

const compose = parseYaml(readFileSync(fileURLToPath(new URL('../../../../docker-compose.yml', import.meta.url)), 'utf8'), { merge: true }) as {
  services: Record<string, { environment?: Record<string, string | number | boolean | null> }>;
};

/** A service's environment as Compose gives it with nothing set outside: `${NAME:-default}` is its default. */
function environmentOf(service: string): Record<string, string> {
  const env = compose.services[service]?.environment ?? {};
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, String(value ?? '').replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1')]));
}

describe('docker-compose.yml sets only settings the services take', () => {
  // found on 2026-11-28: a bound added to a setting refused what a script set, and only a review saw it
  const readers = { friendship: readFriendshipConfig, tasks: readTasksConfig, notifications: readNotificationsConfig, gateway: readGatewayConfig };
  for (const [service, read] of Object.entries(readers)) {
    it(service, () => {
      const env = environmentOf(service);
      expect(Object.keys(env).length).toBeGreaterThan(5);
      expect(() => read(env)).not.toThrow();
    });
  }
});

describe('docker-compose.yml keeps the rules between two services\' settings', () => {
  it('the notifications replicas beat at least twice per friendship\'s online window', () => {
    const notifications = readNotificationsConfig(environmentOf('notifications'));
    const friendship = readFriendshipConfig(environmentOf('friendship'));
    expect(presenceHeartbeatProblems(notifications.PRESENCE_RECORD_INTERVAL_MS, friendship.PRESENCE_ONLINE_WINDOW_MS)).toEqual([]);
  });
});
