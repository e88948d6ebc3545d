import { describe, expect, it } from 'vitest';
import { areaOf, summarizeProfile, type CpuProfile } from '../../src/cpuprofile.ts';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

describe('areaOf', () => {
  it('names pnpm and plain packages, node core and workspace paths', () => {
    expect(areaOf('file:///w/node_modules/.pnpm/pino@9.1.0/node_modules/pino/lib/tools.js')).toBe('pino');
    expect(areaOf('file:///w/node_modules/.pnpm/@fastify+jwt@9/node_modules/@fastify/jwt/jwt.js')).toBe('@fastify/jwt');
    expect(areaOf('file:///w/node_modules/fast-jwt/src/signer.js')).toBe('fast-jwt');
    expect(areaOf('node:internal/http')).toBe('node core');
    expect(areaOf('file:///work/main/services/gateway/src/routing.ts')).toBe('services/gateway');
    expect(areaOf('file:///work/main/libs/platform/src/ids.ts')).toBe('libs/platform');
    expect(areaOf('')).toBe('(native/V8)');
  });
});

describe('summarizeProfile', () => {
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 3, 4, 5] },
      { id: 2, callFrame: frame('(idle)') },
      { id: 3, callFrame: frame('sign', 'file:///w/node_modules/fast-jwt/src/signer.js', 9) },
      { id: 4, callFrame: frame('(garbage collector)') },
      { id: 5, callFrame: frame('handler', 'file:///work/main/services/gateway/src/routing.ts', 19) },
    ],
    startTime: 0,
    endTime: 10_000,
    // intervals: the delta before sample i+1 is attributed to sample i
    samples: [2, 3, 3, 4, 5, 2],
    timeDeltas: [0, 4000, 2000, 1000, 1000, 2000],
  };

  it('attributes time per frame and per area, idle kept apart', () => {
    const s = summarizeProfile(profile);
    expect(s.totalMs).toBeCloseTo(10);
    expect(s.idleMs).toBeCloseTo(4);
    expect(s.busyMs).toBeCloseTo(6);
    expect(s.gcMs).toBeCloseTo(1);
    expect(s.top[0]).toMatchObject({ frame: 'sign fast-jwt/src/signer.js:10', area: 'fast-jwt', selfMs: 3 });
    expect(s.top[0]!.percent).toBeCloseTo(50);
    expect(s.byArea.map((a) => a.area)).toEqual(['fast-jwt', 'services/gateway', '(V8)']);
  });

  it('leaves out the start-up part', () => {
    // samples at 0, 4, 6, 7, 8, 10 ms: from 5 ms on only sign (6→7), gc (7→8) and handler (8→10) remain
    const s = summarizeProfile(profile, 15, 5);
    expect(s.totalMs).toBeCloseTo(4);
    expect(s.idleMs).toBe(0);
    expect(s.top.map((t) => t.selfMs)).toEqual([2, 1, 1]);
  });

  it('keeps only a window of the profile (one phase of a run)', () => {
    // samples at 0, 4, 6, 7, 8, 10 ms: in [5, 8) sign (6→7) and gc (7→8)
    const s = summarizeProfile(profile, 15, 5, 8);
    expect(s.totalMs).toBeCloseTo(2);
    expect(s.top.map((t) => t.frame)).toEqual(['sign fast-jwt/src/signer.js:10', '(garbage collector)']);
  });

  it('falls back to hit counts without samples', () => {
    const s = summarizeProfile({
      nodes: [
        { id: 1, callFrame: frame('(root)') },
        { id: 2, callFrame: frame('work', 'node:internal/x', 0), hitCount: 3 },
        { id: 3, callFrame: frame('(idle)'), hitCount: 1 },
      ],
      startTime: 0,
      endTime: 4000,
    });
    expect(s.busyMs).toBeCloseTo(3);
    expect(s.top[0]).toMatchObject({ area: 'node core', selfMs: 3, percent: 100 });
  });
});
