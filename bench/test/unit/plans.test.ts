import { describe, expect, it } from 'vitest';
import { describePlan } from '../../src/friendship-scenarios.ts';
import { deriveFindings } from '../../src/findings.ts';
import type { BenchReport } from '../../src/report.ts';
import { summarize } from '../../src/stats.ts';

describe('describePlan', () => {
  it('reads MongoDB winning plans stage by stage', () => {
    const plan = { queryPlanner: { winningPlan: { stage: 'LIMIT', inputStage: { stage: 'FETCH', inputStage: { stage: 'IXSCAN', indexName: 'applicationId_1_members_1_status_1__id_1' } } } } };
    expect(describePlan(plan)).toBe('LIMIT ← FETCH ← IXSCAN(applicationId_1_members_1_status_1__id_1)');
  });

  it('reads FerretDB v1 SQL plans with their pushdown flags', () => {
    const plan = { queryPlanner: { Plan: ['id=2 parent=0 notused=0 detail=SCAN relations_ad855496'] }, filterPushdown: false, sortPushdown: false, limitPushdown: false };
    expect(describePlan(plan)).toBe('SQLite: SCAN relations_ad855496; filterPushdown=false, sortPushdown=false, limitPushdown=false');
  });
});

describe('deriveFindings', () => {
  it('names collection scans and the per-document cost from a run', () => {
    const report = {
      plans: [{ query: 'q', text: 'SQLite: SCAN gamers_1; filterPushdown=false, sortPushdown=false, limitPushdown=false', raw: null }],
      growth: [{ series: 'search, by gamers', label: '100k', size: 100_000, collectionDocs: 100_000, latency: summarize([5000]), rate: 0.2, scenarioId: 's' }],
      growthFactors: [{ series: 'search, by gamers', factorP99: 100, factorP50: 100, exponentP50: 1 }],
      scenarios: [],
      tasks: {},
    } as unknown as BenchReport;
    const findings = deriveFindings(report);
    expect(findings[0]).toMatch(/1 of 1 explained friendship queries are full collection scans/);
    expect(findings[1]).toMatch(/about 50–50 µs per gamer document/);
    expect(findings.at(-1)).toMatch(/documents\^1\.00/);
  });
});
