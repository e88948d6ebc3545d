/**
 * Summarises a V8 .cpuprofile (what `node --cpu-prof` writes): self time per function and
 * per package, from the samples and their time deltas. Pure, so it is unit-tested.
 */

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number; scriptId?: string };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface SelfTimeEntry {
  /** function name (or "(anonymous)") with its file and line */
  frame: string;
  /** package or area: a node_modules package, node's internals, or a workspace path */
  area: string;
  selfMs: number;
  /** share of the non-idle time */
  percent: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  /** program, GC and idle are V8's pseudo-frames */
  gcMs: number;
  busyMs: number;
  top: SelfTimeEntry[];
  byArea: { area: string; selfMs: number; percent: number }[];
}

const PSEUDO_IDLE = '(idle)';
const PSEUDO_GC = '(garbage collector)';

/** Which package or part of the workspace a script URL belongs to. */
export function areaOf(url: string): string {
  if (url === '') return '(native/V8)';
  if (url.startsWith('node:')) return 'node core';
  const pnpm = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pnpm) return pnpm[1]!;
  const plain = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (plain) return plain[1]!;
  const workspace = /\/(services\/[^/]+|libs\/[^/]+|bench)\//.exec(url);
  if (workspace) return workspace[1]!;
  return url.replace(/^file:\/\//, '');
}

function shortUrl(url: string): string {
  const i = url.lastIndexOf('node_modules/');
  if (i >= 0) return url.slice(i + 'node_modules/'.length).replace(/^\.pnpm\/[^/]+\/node_modules\//, '');
  const w = /\/((?:services|libs|bench)\/.*)$/.exec(url);
  return w ? w[1]! : url.replace(/^file:\/\//, '');
}

/** A frame as the reports name it: function, then its file (package-relative) and line. */
export function frameLabel({ functionName, url, lineNumber }: CpuProfileNode['callFrame']): string {
  return `${functionName || '(anonymous)'}${url ? ` ${shortUrl(url)}:${lineNumber + 1}` : ''}`;
}

/**
 * Self time of every node in microseconds, from samples + timeDeltas (or hitCount × mean
 * interval). Samples in the first `fromMs` of the profile (start-up) are left out.
 */
export function selfTimesUs(profile: CpuProfile, fromMs: number, toMs = Number.POSITIVE_INFINITY): Map<number, number> {
  const self = new Map<number, number>();
  const { samples, timeDeltas } = profile;
  if (samples && timeDeltas && samples.length === timeDeltas.length && samples.length > 0) {
    // timeDeltas[i] is the time between samples i-1 and i: sample i lasts until sample i+1
    let at = 0;
    for (let i = 0; i < samples.length; i++) {
      at += timeDeltas[i]!;
      if (at < fromMs * 1000 || at >= toMs * 1000) continue;
      const next = timeDeltas[i + 1] ?? 0;
      self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + Math.max(0, next));
    }
    return self;
  }
  const hits = profile.nodes.reduce((s, n) => s + (n.hitCount ?? 0), 0);
  const interval = hits > 0 ? (profile.endTime - profile.startTime) / hits : 0;
  for (const n of profile.nodes) self.set(n.id, (n.hitCount ?? 0) * interval);
  return self;
}

/** `fromMs`..`toMs`: the window of the profile (ms from its start) whose samples count. */
export function summarizeProfile(profile: CpuProfile, topN = 15, fromMs = 0, toMs = Number.POSITIVE_INFINITY): ProfileSummary {
  const self = selfTimesUs(profile, fromMs, toMs);
  const byFrame = new Map<string, { area: string; us: number }>();
  const byArea = new Map<string, number>();
  let idle = 0;
  let gc = 0;
  let total = 0;
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0;
    if (us === 0) continue;
    total += us;
    const { functionName, url } = node.callFrame;
    if (functionName === PSEUDO_IDLE) {
      idle += us;
      continue;
    }
    if (functionName === PSEUDO_GC) gc += us;
    const area = functionName.startsWith('(') ? '(V8)' : areaOf(url);
    const frame = frameLabel(node.callFrame);
    const entry = byFrame.get(frame) ?? { area, us: 0 };
    entry.us += us;
    byFrame.set(frame, entry);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }
  const busy = total - idle;
  const pct = (us: number) => (busy > 0 ? (us / busy) * 100 : 0);
  const top = [...byFrame.entries()]
    .sort((a, b) => b[1].us - a[1].us)
    .slice(0, topN)
    .map(([frame, e]) => ({ frame, area: e.area, selfMs: e.us / 1000, percent: pct(e.us) }));
  const areas = [...byArea.entries()].sort((a, b) => b[1] - a[1]).map(([area, us]) => ({ area, selfMs: us / 1000, percent: pct(us) }));
  return { totalMs: total / 1000, idleMs: idle / 1000, gcMs: gc / 1000, busyMs: busy / 1000, top, byArea: areas };
}
