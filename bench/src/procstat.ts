import { readFileSync } from 'node:fs';
import { cpuPercent } from './stats.ts';

/** Linux USER_HZ: /proc/<pid>/stat counts CPU time in these ticks (100 on every common kernel). */
export const CLOCK_TICKS = 100;

/** utime + stime in ticks from a /proc/<pid>/stat line (the command may contain spaces and parentheses). */
export function parseStatTicks(stat: string): number {
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); utime and stime are fields 14 and 15
  return Number(rest[11]) + Number(rest[12]);
}

/** Resident set size in bytes from /proc/<pid>/status. */
export function parseRssBytes(status: string): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return m ? Number(m[1]) * 1024 : Number.NaN;
}

function readTicks(pid: number): number | undefined {
  try {
    return parseStatTicks(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

function readRss(pid: number): number | undefined {
  try {
    return parseRssBytes(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return undefined;
  }
}

export interface ProcessUsage {
  /** percent of one core over the sampled interval (200 = both cores of this machine) */
  cpuPercent: number;
  rssMbPeak: number;
  rssMbMean: number;
}

/**
 * Samples CPU time and RSS of named processes while a scenario runs. CPU is the tick
 * difference between start and stop; RSS is sampled every `intervalMs`.
 */
export class UsageSampler {
  private readonly pids: Map<string, number>;
  private readonly startTicks = new Map<string, number>();
  private readonly rss = new Map<string, number[]>();
  private started = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(pids: Map<string, number>) {
    this.pids = pids;
  }

  start(intervalMs = 500): void {
    this.started = performance.now();
    for (const [name, pid] of this.pids) {
      const t = readTicks(pid);
      if (t !== undefined) this.startTicks.set(name, t);
      this.rss.set(name, []);
    }
    this.sampleRss();
    this.timer = setInterval(() => this.sampleRss(), intervalMs);
    this.timer.unref();
  }

  private sampleRss(): void {
    for (const [name, pid] of this.pids) {
      const r = readRss(pid);
      if (r !== undefined && Number.isFinite(r)) this.rss.get(name)?.push(r);
    }
  }

  stop(): Record<string, ProcessUsage> {
    if (this.timer) clearInterval(this.timer);
    this.sampleRss();
    const elapsed = performance.now() - this.started;
    const out: Record<string, ProcessUsage> = {};
    for (const [name, pid] of this.pids) {
      const t0 = this.startTicks.get(name);
      const t1 = readTicks(pid);
      const samples = this.rss.get(name) ?? [];
      out[name] = {
        cpuPercent: t0 !== undefined && t1 !== undefined ? cpuPercent(t1 - t0, CLOCK_TICKS, elapsed) : Number.NaN,
        rssMbPeak: samples.length ? Math.max(...samples) / 1_048_576 : Number.NaN,
        rssMbMean: samples.length ? samples.reduce((s, v) => s + v, 0) / samples.length / 1_048_576 : Number.NaN,
      };
    }
    return out;
  }
}

/** CPU over one interval: the machine's busy CPU, each named process's, and the rest ("other"), in percent of one core. */
export interface IntervalCpu {
  machinePercent: number;
  otherPercent: number;
  processes: Record<string, number>;
}

/**
 * CPU of the machine and of named processes between successive `next()` calls, for a
 * timeline: which seconds the machine, or one of the processes, was busy in.
 */
export class CpuIntervals {
  private readonly pids: Map<string, number>;
  private last: { at: number; machine: { busy: number; total: number } | undefined; ticks: Map<string, number> };

  constructor(pids: Map<string, number>) {
    this.pids = pids;
    this.last = this.read();
  }

  private read() {
    const ticks = new Map<string, number>();
    for (const [name, pid] of this.pids) {
      const t = readTicks(pid);
      if (t !== undefined) ticks.set(name, t);
    }
    return { at: performance.now(), machine: readMachineTicks(), ticks };
  }

  /** The interval since the previous call (or construction); undefined when it is under `minMs` (ticks are 10 ms). */
  next(minMs = 500): IntervalCpu | undefined {
    const now = this.read();
    const before = this.last;
    const elapsed = now.at - before.at;
    if (elapsed < minMs) return undefined;
    this.last = now;
    const processes: Record<string, number> = {};
    for (const [name, t1] of now.ticks) {
      const t0 = before.ticks.get(name);
      if (t0 !== undefined) processes[name] = cpuPercent(t1 - t0, CLOCK_TICKS, elapsed);
    }
    const machinePercent = now.machine && before.machine ? cpuPercent(now.machine.busy - before.machine.busy, CLOCK_TICKS, elapsed) : Number.NaN;
    const ours = Object.values(processes).reduce((sum, v) => sum + v, 0);
    return { machinePercent, otherPercent: Math.max(0, machinePercent - ours), processes };
  }
}

/** Load average of the machine (1, 5, 15 minutes). */
export function loadAverage(): [number, number, number] {
  try {
    const [a, b, c] = readFileSync('/proc/loadavg', 'utf8').split(' ').map(Number);
    return [a ?? Number.NaN, b ?? Number.NaN, c ?? Number.NaN];
  } catch {
    return [Number.NaN, Number.NaN, Number.NaN];
  }
}

/** Busy and total clock ticks of the whole machine from the first line of /proc/stat. */
export function parseMachineTicks(stat: string): { busy: number; total: number } {
  const line = stat.split('\n', 1)[0] ?? '';
  const f = line.trim().split(/\s+/).slice(1, 9).map(Number); // user nice system idle iowait irq softirq steal
  const total = f.reduce((s, v) => s + (Number.isFinite(v) ? v : 0), 0);
  const idle = (f[3] ?? 0) + (f[4] ?? 0);
  return { busy: total - idle, total };
}

/** The machine's busy and total ticks now, or undefined where /proc/stat cannot be read. */
function readMachineTicks(): { busy: number; total: number } | undefined {
  try {
    return parseMachineTicks(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return undefined;
  }
}

/** Percent of one core the whole machine was busy since `since` (200 = both cores of a 2-core machine). */
export class MachineCpu {
  private readonly startTicks: { busy: number; total: number } | undefined;
  private readonly started = performance.now();

  constructor() {
    this.startTicks = readMachineTicks();
  }

  stop(): number {
    const end = readMachineTicks();
    if (!this.startTicks || !end) return Number.NaN;
    return cpuPercent(end.busy - this.startTicks.busy, CLOCK_TICKS, performance.now() - this.started);
  }
}

/**
 * When a process started, in ms since the epoch: field 22 of /proc/<pid>/stat (clock ticks
 * after boot) plus the boot time (`btime` of /proc/stat). Resolution 10 ms.
 */
export function processStartEpochMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    return Number.isFinite(startTicks) && Number.isFinite(btime) ? btime * 1000 + (startTicks / CLOCK_TICKS) * 1000 : undefined;
  } catch {
    return undefined;
  }
}
