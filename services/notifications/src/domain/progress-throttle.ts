/**
 * When a task.progress message may go out on a socket: at most one per task per interval
 * (issue 12: "coalesced to at most one per task per second"). The first goes at once; one
 * arriving sooner waits for the interval's end and is replaced by any newer one meanwhile,
 * so the client always ends on the latest value with the fewest messages.
 */
export function progressDecision(lastSentAt: number | undefined, now: number, intervalMs: number): { kind: 'send' } | { kind: 'hold'; forMs: number } {
  if (lastSentAt === undefined || now - lastSentAt >= intervalMs) return { kind: 'send' };
  return { kind: 'hold', forMs: intervalMs - (now - lastSentAt) };
}

export interface Timers {
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

const systemTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface TaskSlot<T> {
  lastSentAt: number | undefined;
  pending: T | undefined;
  timer: unknown;
}

/** Completed tasks a socket remembers, to drop their late progress: far more than a session completes. */
const COMPLETED_KEPT = 1_000;

/** Slots a socket keeps before it drops those past their interval (a missing slot sends at once too). */
const SLOTS_BEFORE_SWEEP = 64;

/** Holds the progress of each task of one socket per progressDecision; `send` writes one. */
export class ProgressThrottle<T> {
  private readonly slots = new Map<string, TaskSlot<T>>();
  /** the slot count past which the next new slot first drops the stale ones */
  private sweepAt = SLOTS_BEFORE_SWEEP;
  /** tasks whose completion went out, oldest first: a completed gamer task never moves again */
  private readonly completed = new Set<string>();
  private readonly intervalMs: number;
  private readonly send: (message: T) => void;
  private readonly timers: Timers;
  private readonly now: () => number;

  constructor(intervalMs: number, send: (message: T) => void, timers: Timers = systemTimers, now: () => number = Date.now) {
    this.intervalMs = intervalMs;
    this.send = send;
    this.timers = timers;
    this.now = now;
  }

  offer(taskKey: string, message: T): void {
    if (this.completed.has(taskKey)) return;
    let slot = this.slots.get(taskKey);
    if (!slot) {
      if (this.slots.size >= this.sweepAt) this.sweep();
      slot = { lastSentAt: undefined, pending: undefined, timer: undefined };
      this.slots.set(taskKey, slot);
    }
    const decision = progressDecision(slot.lastSentAt, this.now(), this.intervalMs);
    if (decision.kind === 'send') {
      slot.lastSentAt = this.now();
      this.send(message);
      return;
    }
    slot.pending = message;
    slot.timer ??= this.timers.setTimeout(() => this.flush(taskKey), decision.forMs);
  }

  /**
   * The task completed: a progress still held, or one arriving later (the tasks service
   * publishes a batch's progress after its completions, and another lane or replica may
   * complete the task first), would show after its completion; drop them.
   */
  forget(taskKey: string): void {
    const slot = this.slots.get(taskKey);
    if (slot?.timer !== undefined) this.timers.clearTimeout(slot.timer);
    this.slots.delete(taskKey);
    this.completed.add(taskKey);
    if (this.completed.size > COMPLETED_KEPT) this.completed.delete(this.completed.values().next().value!);
  }

  stop(): void {
    for (const slot of this.slots.values()) if (slot.timer !== undefined) this.timers.clearTimeout(slot.timer);
    this.slots.clear();
    this.completed.clear();
  }

  /**
   * Drops the slots that hold nothing and whose interval has passed: their task's next
   * progress goes at once with or without them. Without this a long-lived socket kept a slot
   * for every task it ever saw move (daily tasks expire unfinished and come back as new ids).
   */
  private sweep(): void {
    const now = this.now();
    for (const [key, slot] of this.slots) {
      if (slot.timer === undefined && slot.pending === undefined && (slot.lastSentAt === undefined || now - slot.lastSentAt >= this.intervalMs)) this.slots.delete(key);
    }
    this.sweepAt = Math.max(SLOTS_BEFORE_SWEEP, 2 * this.slots.size);
  }

  /** Tasks with a slot (tests). */
  get slotCount(): number {
    return this.slots.size;
  }

  private flush(taskKey: string): void {
    const slot = this.slots.get(taskKey);
    if (!slot) return;
    slot.timer = undefined;
    const message = slot.pending;
    slot.pending = undefined;
    if (message === undefined) return;
    slot.lastSentAt = this.now();
    this.send(message);
  }
}
