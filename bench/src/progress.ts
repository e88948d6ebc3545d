import { etaMs } from './stats.ts';

/**
 * Progress on stderr: the phase, its own percent, and the whole run's percent and ETA,
 * from a plan of weighted phases (weights are expected seconds).
 */
export class Progress {
  private readonly plan: Map<string, number>;
  private readonly totalWeight: number;
  private doneWeight = 0;
  private phase = '';
  private phaseWeight = 0;
  private readonly started = performance.now();
  private lastLine = 0;

  constructor(plan: Record<string, number>) {
    this.plan = new Map(Object.entries(plan));
    this.totalWeight = [...this.plan.values()].reduce((s, v) => s + v, 0) || 1;
  }

  private phaseMax = 0;

  begin(phase: string): void {
    this.phase = phase;
    this.phaseMax = 0;
    this.phaseWeight = this.plan.get(phase) ?? 0;
    this.report(0, 'start', true);
  }

  /** fraction of the current phase done, 0..1, with a short note */
  report(fraction: number, note = '', force = false): void {
    const now = performance.now();
    if (!force && now - this.lastLine < 2_000) return;
    this.lastLine = now;
    // several scenarios share a phase: its percent never goes back
    const f = Math.max(this.phaseMax, Math.min(1, Math.max(0, fraction)));
    this.phaseMax = f;
    const overall = Math.min(1, (this.doneWeight + this.phaseWeight * f) / this.totalWeight);
    const eta = etaMs(overall, now - this.started);
    const etaText = Number.isFinite(eta) ? formatDuration(eta) : '?';
    process.stderr.write(`[bench ${formatDuration(now - this.started)}] ${this.phase} ${(f * 100).toFixed(0)}% ${note} | run ${(overall * 100).toFixed(0)}%, ETA ${etaText}\n`);
  }

  end(note = 'done'): void {
    this.report(1, note, true);
    this.doneWeight += this.phaseWeight;
  }

  log(message: string): void {
    process.stderr.write(`[bench ${formatDuration(performance.now() - this.started)}] ${message}\n`);
  }
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  const m = Math.floor(s / 60);
  return m > 0 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}
