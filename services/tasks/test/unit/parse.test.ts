import { describe, expect, it } from 'vitest';
import { eventAgeSeconds, parseStatMessage, retryDelay } from '../../src/stats/parse.ts';

const APP = 'a1b2c3d4-0000-4000-8000-000000000001';
const encode = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
const event = {
  eventId: 'E1B2C3D4-0000-4000-8000-000000000002',
  applicationId: APP,
  gamerId: 'c1b2c3d4-0000-4000-8000-000000000003',
  gameId: 'match-1',
  occurredAt: '2026-11-21T10:00:00Z',
  stats: [{ applicationStatsId: 'wins', value: 1 }],
};

describe('stat message parsing', () => {
  it('accepts an event on its application\'s subject, ids in lower case', () => {
    const parsed = parseStatMessage(`gfts.stats.${APP}`, encode(event));
    expect(parsed).toEqual({ ok: true, event: { ...event, eventId: event.eventId.toLowerCase() } });
  });

  it('calls anything else poison, with the reason', () => {
    expect(parseStatMessage(`gfts.stats.${APP}`, encode('{not json'))).toMatchObject({ ok: false, reason: 'payload is not UTF-8 JSON' });
    expect(parseStatMessage(`gfts.stats.${APP}`, new Uint8Array([0xff, 0xfe]))).toMatchObject({ ok: false });
    const negative = parseStatMessage(`gfts.stats.${APP}`, encode({ ...event, stats: [{ applicationStatsId: 'wins', value: -1 }] }));
    expect(negative).toMatchObject({ ok: false, reason: 'payload does not match the StatEvent schema' });
    expect(parseStatMessage(`gfts.stats.${APP}`, encode({ ...event, stats: [] }))).toMatchObject({ ok: false });
    expect(parseStatMessage(`gfts.stats.${APP}`, encode({ ...event, extra: 1 }))).toMatchObject({ ok: false });
    expect(parseStatMessage('gfts.stats.other-app', encode(event))).toMatchObject({ ok: false, reason: expect.stringMatching(/not the event's application/) });
  });

  it('backs off redeliveries up to 30 s', () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(n, 1000))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelay(20, 1000)).toBe(30_000);
    expect(retryDelay(3, 0)).toBe(0);
  });

  it('an event\'s age is the time since JetStream stored it, in seconds, and never negative', () => {
    const storedAtMs = Date.UTC(2026, 10, 27, 4, 0, 0);
    expect(eventAgeSeconds(storedAtMs * 1e6, storedAtMs + 250)).toBeCloseTo(0.25, 6);
    expect(eventAgeSeconds(storedAtMs * 1e6, storedAtMs)).toBe(0);
    // the server's clock ahead of the pod's
    expect(eventAgeSeconds(storedAtMs * 1e6, storedAtMs - 40)).toBe(0);
  });
});
