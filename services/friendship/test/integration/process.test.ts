import { fileURLToPath } from 'node:url';
import { spawnService } from '@gfts/testkit';
import { describe, expect, it } from 'vitest';

const SERVER = fileURLToPath(new URL('../../src/server.ts', import.meta.url));

describe('friendship process', () => {
  it('fails at start naming every wrong or missing setting', async () => {
    const { code, output } = await spawnService(SERVER, { MAX_FRIENDS: '0', NATS_PREFIX: 'Has Spaces', INTERNAL_TOKEN_SECRET: 'short' }).exited;
    expect(code).toBe(1);
    expect(output).toMatch(/invalid configuration/);
    for (const setting of ['MAX_FRIENDS', 'NATS_PREFIX', 'INTERNAL_TOKEN_SECRET', 'MONGO_URL is required', 'NATS_URL is required']) expect(output).toContain(setting);
  });
});
