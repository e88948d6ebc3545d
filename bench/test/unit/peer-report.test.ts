import { describe, expect, it } from 'vitest';
import { goalRows, renderPeer, type PeerReport } from '../../src/peer-report.ts';
import { cpuMsPerUnit } from '../../src/stats.ts';

function report(over: Partial<PeerReport['ratios']> = {}): PeerReport {
  const phase = (id: string, unit: string, cpu: Record<string, number>) => ({
    id, title: id, count: 100, unit, seconds: 10, rate: 10, latency: { n: 100, p50: 5, p99: 9, max: 12 }, errors: 0,
    usage: Object.fromEntries(Object.keys(cpu).map((n) => [n, { cpuPercent: 50, rssMbPeak: 100 }])), cpuMsPer: cpu, machineCpuPercent: 150, notes: [],
  });
  return {
    startedAt: '2026-11-23T15:00:00.000Z', label: 'after', benchCommit: 'abc', stackCommit: 'abc', stackRoot: '/x', app: 'a',
    loadBefore: [1, 1, 1], loadAfter: [1, 1, 1], setup: { gamers: 2020, friendships: 2000, seconds: 3, registered: 1020 },
    nakama: { friendListCpuMs: 2.5, addFriendCpuMs: 4, friendListRps: 630, addFriendPairsPerS: 300 },
    aims: { friendListRps: 135, addFriendPairsPerS: 100, gatewayVsDirect: 0.7 },
    ratios: { friendListOursCpuMs: 2, friendListAllCpuMs: 10, addFriendOursCpuMs: 6, addFriendAllCpuMs: 20, friendListRps: 140, addFriendPairsPerS: 50, gatewayVsDirect: 0.69, ...over },
    phases: [phase('friend-list', 'req', { gateway: 0.5, friendship: 1.5, 'friendship-db': 8 }), phase('add-friend', 'pair', { gateway: 1, friendship: 5 })],
  };
}

describe('CPU per unit', () => {
  it('is CPU percent of a core times the seconds, per unit', () => {
    // half a core for 10 s = 5,000 ms of CPU over 100 requests
    expect(cpuMsPerUnit(50, 10, 100)).toBe(50);
    expect(cpuMsPerUnit(200, 1, 1000)).toBe(2);
  });
  it('has no figure without units or without a measurement', () => {
    expect(cpuMsPerUnit(50, 10, 0)).toBeNaN();
    expect(cpuMsPerUnit(Number.NaN, 10, 5)).toBeNaN();
  });
});

describe('peer report', () => {
  it('judges each goal of issue #16 against its threshold', () => {
    const verdicts = goalRows(report()).map((row) => row[3]);
    expect(verdicts.slice(0, 5)).toEqual(['**met**', '**not met**', '**met**', '**not met**', '**not met**']);
  });
  it('says "no data" rather than a verdict for a missing figure', () => {
    expect(goalRows(report({ gatewayVsDirect: Number.NaN }))[4]![3]).toBe('no data');
  });
  it('shows CPU per request of every process and a before/after table', () => {
    const before = { ...report({ friendListRps: 40 }), label: 'before', stackCommit: 'old' };
    const md = renderPeer(report(), before);
    expect(md).toContain('| friend-list | 0.50 | 1.50 | 8.00 |');
    expect(md).toContain('## Before / after: before (stack commit old, bench abc) → after (stack commit abc)');
    expect(md).toContain('| friend list req/s | 40.0 | 140.0 | ×3.50 |');
  });
});

describe('CPU per unit in the main bench page', () => {
  it('divides each process\'s CPU over the scenario by the units it served', async () => {
    const { cpuPerUnitTable } = await import('../../src/report.ts');
    const scenario = {
      id: 'pairs-main', title: 'request + accept pairs', mode: 'custom' as const, connections: 2, wallS: 10, requests: 300, rate: 25, unit: 'pairs/s',
      latency: { n: 250, mean: 1, p50: 1, p99: 1, p999: 1, max: 1 }, errors: 0, non2xx: 0, timeouts: 0, statusCodes: {},
      usage: { gateway: { cpuPercent: 10, rssMbPeak: 1, rssMbMean: 1 }, friendship: { cpuPercent: 50, rssMbPeak: 1, rssMbMean: 1 } }, notes: [],
    };
    // 250 pairs in 10 s; gateway 10 % of a core = 1,000 ms -> 4 ms a pair; friendship 20 ms
    expect(cpuPerUnitTable([scenario], ['gateway', 'friendship', 'friendship-db'])).toContain('| request + accept pairs | pair | 4.00 | 20.00 | – |');
  });
});
