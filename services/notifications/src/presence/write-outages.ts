/** The kinds of presence writes: gamer keys put and purged, and the replica's heartbeat. */
export type PresenceWriteKind = 'put' | 'purge' | 'beat';

/**
 * When the presence holder's writes are failing: an outage opens at its first failed write
 * and ends at the first write begun after that one which went through. Writes are numbered as
 * they start (`start`), and their answers may come late and out of order, under load:
 * - a failure of a write older than one of its kind that went through, or older than the
 *   write that ended the last outage, belongs to an outage already over: not a new one;
 * - a success of a write older than the failure that opened the outage does not end it.
 * Until 2026-11-29 each late answer counted as it came: an outage over was logged again, and
 * one going on was said to have ended.
 */
export class WriteOutages {
  private started = 0;
  private readonly lastWritten: Record<PresenceWriteKind, number> = { put: 0, purge: 0, beat: 0 };
  private failures = 0;
  private openedAt = 0;
  private endedAt = 0;

  /** A write begins: its number. */
  start(): number {
    return ++this.started;
  }

  /** Write `attempt` failed: 'opened' when it opens an outage (log it), else 'counted' or 'stale'. */
  failed(attempt: number, kind: PresenceWriteKind): 'opened' | 'counted' | 'stale' {
    if (attempt < this.lastWritten[kind] || attempt < this.endedAt) return 'stale';
    if (this.failures++ > 0) return 'counted';
    this.openedAt = attempt;
    return 'opened';
  }

  /** Write `attempt` went through: how many writes had failed when it ends an outage (log it), else undefined. */
  wrote(attempt: number, kind: PresenceWriteKind): number | undefined {
    this.lastWritten[kind] = Math.max(this.lastWritten[kind], attempt);
    if (this.failures === 0 || attempt < this.openedAt) return undefined;
    const failed = this.failures;
    this.failures = 0;
    this.endedAt = attempt;
    return failed;
  }
}
