import { describe, expect, it } from 'vitest';
import { healthPlugin } from '../../src/health.ts';
import { createHttpServer } from '../../src/http.ts';

describe('readiness metrics', () => {
  it('records each check of the last /readyz and counts changes between ready and unready', async () => {
    const app = createHttpServer({ service: 'test', logLevel: 'silent', bodyLimit: 1024 });
    let databaseUp = true;
    await app.register(healthPlugin, {
      checks: { mongodb: async () => { if (!databaseUp) throw new Error('down'); }, nats: async () => undefined },
    });
    const readyz = async () => (await app.inject({ method: 'GET', url: '/readyz' })).statusCode;
    const metrics = async () => (await app.inject({ method: 'GET', url: '/metrics' })).body;

    expect(await readyz()).toBe(200);
    expect(await readyz()).toBe(200);
    expect(await metrics()).toMatch(/^gfts_readiness_changes_total\{service="test"\} 0$/m);
    databaseUp = false;
    expect(await readyz()).toBe(503);
    const down = await metrics();
    expect(down).toMatch(/^gfts_readiness_check\{check="mongodb",service="test"\} 0$/m);
    expect(down).toMatch(/^gfts_readiness_check\{check="nats",service="test"\} 1$/m);
    expect(await readyz()).toBe(503);
    databaseUp = true;
    expect(await readyz()).toBe(200);
    const flapped = await metrics();
    expect(flapped).toMatch(/^gfts_readiness_changes_total\{service="test"\} 2$/m);
    expect(flapped).toMatch(/^gfts_readiness_check\{check="mongodb",service="test"\} 1$/m);
    await app.close();
  });

  it('drops a check\'s result a minute after the last /readyz: no stale 0 for a pod no probe calls', async () => {
    let clock = 1_000_000;
    const app = createHttpServer({ service: 'test', logLevel: 'silent', bodyLimit: 1024 });
    let upstreamUp = false;
    await app.register(healthPlugin, {
      checks: { tasks: async () => { if (!upstreamUp) throw new Error('down'); } },
      now: () => clock,
    });
    const metrics = async () => (await app.inject({ method: 'GET', url: '/metrics' })).body;

    // an operator's one call during an incident; then the upstream recovers, nobody calls again
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    upstreamUp = true;
    clock += 60_000;
    expect(await metrics()).toMatch(/^gfts_readiness_check\{check="tasks",service="test"\} 0$/m);
    clock += 1;
    expect(await metrics()).not.toMatch(/^gfts_readiness_check\{/m);
    // a later call sets it again
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    expect(await metrics()).toMatch(/^gfts_readiness_check\{check="tasks",service="test"\} 1$/m);
    await app.close();
  });
});
