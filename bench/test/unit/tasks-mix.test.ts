import { describe, expect, it } from 'vitest';
import { gameStats, MixModel, mixCatalog, seededRandom, type CatalogTaskView } from '../../src/datagen/tasks-mix.ts';
import { seededPicks } from '../../src/datagen/tasks-direct.ts';
import { ceilingForRatio, describeKnee, keptUp, p99OfAllEvents, stalls } from '../../src/pipeline-report.ts';
import { parseMachineTicks } from '../../src/procstat.ts';
import { summarize } from '../../src/stats.ts';

const view = (id: string, stat: string, targetValue: number, o: Partial<CatalogTaskView> = {}): CatalogTaskView => ({ id, applicationStatsId: stat, targetValue, numberOfGames: 0, isAchievement: false, children: [], ...o });

describe('mixCatalog', () => {
  it('has 9 daily tasks, 2 weekly composites of 3 and 2 achievements, all on stats a game reports', () => {
    const c = mixCatalog((i) => `item-${i}`);
    expect(c.filter((t) => t.family === 'daily')).toHaveLength(9);
    const weekly = c.filter((t) => t.family === 'weekly');
    expect(weekly.map((w) => w.children?.length)).toEqual([3, 3]);
    expect(c.filter((t) => t.isAchievement).map((t) => t.family)).toEqual(['lifetime', 'lifetime']);
    const reported = new Set(['games_played', 'kills', 'wins', 'coins', 'headshots', 'assists']);
    for (const t of c) for (const s of [t, ...(t.children ?? [])]) expect(reported.has(s.applicationStatsId)).toBe(true);
  });
});

describe('gameStats', () => {
  it('always reports one game, leaves zero stats out, and is the same for the same seed', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    for (let i = 0; i < 200; i++) {
      const s = gameStats(a);
      expect(s).toEqual(gameStats(b));
      expect(s[0]).toEqual({ applicationStatsId: 'games_played', value: 1 });
      for (const x of s) expect(x.value).toBeGreaterThan(0);
    }
  });
});

describe('MixModel', () => {
  it('counts one update per open task the game moves, and completes at the target', () => {
    const m = new MixModel([view('k', 'kills', 10), view('w', 'wins', 2), view('a', 'games_played', 1000, { isAchievement: true })]);
    for (const t of ['k', 'w', 'a']) m.assign('g', t);
    expect(m.apply('g', [{ applicationStatsId: 'games_played', value: 1 }, { applicationStatsId: 'kills', value: 6 }])).toEqual({ updates: 2, completions: 0 });
    expect(m.apply('g', [{ applicationStatsId: 'games_played', value: 1 }, { applicationStatsId: 'kills', value: 6 }, { applicationStatsId: 'wins', value: 1 }])).toEqual({ updates: 3, completions: 1 });
    // a completed task takes no more writes
    expect(m.apply('g', [{ applicationStatsId: 'games_played', value: 1 }, { applicationStatsId: 'kills', value: 6 }])).toEqual({ updates: 1, completions: 0 });
    expect(m.apply('other', [{ applicationStatsId: 'kills', value: 6 }])).toEqual({ updates: 0, completions: 0 });
  });

  it('moves a composite parent once per completed child and completes it with the last', () => {
    const m = new MixModel([view('p', 'games_played', 1, { children: [{ id: 'c1', applicationStatsId: 'kills', targetValue: 2, numberOfGames: 0 }, { id: 'c2', applicationStatsId: 'wins', targetValue: 1, numberOfGames: 0 }] })]);
    m.assign('g', 'p');
    expect(m.held('g')).toEqual(['p']);
    expect(m.apply('g', [{ applicationStatsId: 'kills', value: 2 }])).toEqual({ updates: 2, completions: 1 });
    expect(m.apply('g', [{ applicationStatsId: 'wins', value: 1 }])).toEqual({ updates: 2, completions: 2 });
    expect(m.openTasks()).toBe(0);
  });

  it('starts a numberOfGames window again when it ends short of the target', () => {
    const m = new MixModel([view('w', 'wins', 3, { numberOfGames: 2 })]);
    m.assign('g', 'w');
    const win = [{ applicationStatsId: 'wins', value: 1 }];
    expect(m.apply('g', win).completions).toBe(0);
    expect(m.apply('g', win).completions).toBe(0); // game 2 of 2, 2 < 3: reset
    expect(m.apply('g', win).completions).toBe(0);
    expect(m.apply('g', win).completions).toBe(0);
    expect(m.openTasks()).toBe(1);
  });

  it('finds a one-game finisher among open single tasks, never games_played', () => {
    const m = new MixModel([view('g2', 'games_played', 2), view('c', 'coins', 500)]);
    m.assign('g', 'g2');
    m.assign('g', 'c');
    m.apply('g', [{ applicationStatsId: 'coins', value: 120 }]);
    expect(m.finisher('g')).toEqual({ applicationStatsId: 'coins', value: 380 });
  });
});

describe('seededPicks', () => {
  it('picks 3 distinct daily entries and 1 weekly, the same for the same seed, whatever the input order', () => {
    const daily = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => ({ name }));
    const weekly = [{ name: 'w1' }, { name: 'w2' }];
    const p = seededPicks(daily, weekly, 42);
    expect(p).toHaveLength(4);
    expect(new Set(p.slice(0, 3).map((x) => x.name)).size).toBe(3);
    expect(['w1', 'w2']).toContain(p[3]!.name);
    expect(seededPicks([...daily].reverse(), [...weekly].reverse(), 42)).toEqual(p);
  });
});

describe('pipeline figures', () => {
  const lat = summarize([10, 20, 30]);
  it('a rate is kept up when ≥ 95 % was processed in the window and the queue is under a second old', () => {
    expect(keptUp({ accepted: 1000, processedInWindow: 990, queueAgeAtWindowEndMs: 50 })).toBe(true);
    expect(keptUp({ accepted: 1000, processedInWindow: 900, queueAgeAtWindowEndMs: 50 })).toBe(false);
    expect(keptUp({ accepted: 1000, processedInWindow: 990, queueAgeAtWindowEndMs: 2500 })).toBe(false);
  });

  it('places the knee between the last rate kept up and the first not', () => {
    const phase = (offeredRate: number, processedRateInWindow: number, ok: boolean) => ({
      offeredRate,
      accepted: offeredRate * 20,
      processedInWindow: ok ? offeredRate * 20 : processedRateInWindow * 20,
      processedRateInWindow,
      queueAgeAtWindowEndMs: ok ? 0 : 8000,
      latency: lat,
    });
    expect(describeKnee([phase(1000, 1000, true), phase(2000, 2000, true), phase(5000, 2600, false)], 2700)).toContain('between 2000 and 5000');
    expect(describeKnee([phase(1000, 23, false)], 23)).toContain('below 1000');
    expect(describeKnee([phase(1000, 1000, true)], Number.NaN)).toContain('above it');
  });

  it('makes the p99 at least the cap when more than 1 % of the events were never processed', () => {
    expect(p99OfAllEvents({ accepted: 1000, unprocessed: 500, latency: lat }, 30_000)).toMatchObject({ value: 30_000, lowerBound: true });
    expect(p99OfAllEvents({ accepted: 1000, unprocessed: 0, latency: lat }, 30_000)).toMatchObject({ value: 30, lowerBound: false });
    expect(p99OfAllEvents({ accepted: 1000, unprocessed: 0, latency: summarize([]) }, 30_000).value).toBeNaN();
    // fewer than 1 % never processed, counted as the slowest: the p99 of all events is at most
    // the processed ones' p99.9 (0.3 %: the 0.993 quantile), past 0.9 % at least the cap
    expect(p99OfAllEvents({ accepted: 1000, unprocessed: 3, latency: lat }, 30_000)).toMatchObject({ value: lat.p999, lowerBound: false });
    expect(p99OfAllEvents({ accepted: 1000, unprocessed: 10, latency: lat }, 30_000)).toMatchObject({ value: 30_000, lowerBound: true });
  });

  it('compares the consumer with the store\'s best full-document ceiling of the run, two commands at once included', () => {
    const variants = [
      { batch: 1, concurrency: 1, documents: 'copy' as const, statementsPerSecond: 900, batchLatency: summarize([]), storeCpuPercent: 50 },
      { batch: 256, concurrency: 2, documents: 'copy' as const, statementsPerSecond: 9_442, batchLatency: summarize([]), storeCpuPercent: 90 },
      { batch: 256, concurrency: 1, documents: 'minimal' as const, statementsPerSecond: 18_000, batchLatency: summarize([]), storeCpuPercent: 88 },
    ];
    expect(ceilingForRatio({ batch: 256, statementsPerSecond: 7_722, variants })).toEqual({ statementsPerSecond: 9_442, what: '256 statements per bulkWrite, 2 at a time' });
    expect(ceilingForRatio({ batch: 256, statementsPerSecond: 7_722, variants: [] })).toEqual({ statementsPerSecond: 7_722, what: '256 statements per bulkWrite, 1 at a time' });
    expect(ceilingForRatio(undefined).statementsPerSecond).toBeNaN();
  });

  it('finds the spans where nothing was acknowledged with events queued, merging adjacent ones', () => {
    const point = (t: number, backlog: number, processed: number) => ({ t, published: 0, backlog, processed });
    const timeline = [point(0, 0, 0), point(1, 10, 5), point(2, 20, 5), point(3, 30, 5), point(4, 25, 20), point(5, 25, 20), point(6, 0, 50)];
    expect(stalls(timeline)).toEqual({ longestS: 2, totalS: 3, count: 2 });
    expect(stalls([point(0, 0, 0), point(1, 0, 0)])).toEqual({ longestS: 0, totalS: 0, count: 0 });
  });

  it('reads busy and total ticks of the machine from /proc/stat', () => {
    expect(parseMachineTicks('cpu  100 5 50 800 20 3 2 0 0 0\ncpu0 1 2 3\n')).toEqual({ busy: 160, total: 980 });
  });
});
