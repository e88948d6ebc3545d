/**
 * Which lane a stat event takes when lanes open only under a backlog. Lane 0 takes every
 * gamer while less than a batch waits in it: at moderate load one lane writes batches as
 * large as the load makes them (two lanes would halve them and double the store commands
 * per event). When a full batch waits there, a gamer goes to the first lane with room: the
 * backlog spills over and the lanes' batches overlap. A gamer with events queued, being
 * written or settling in a lane keeps that lane until they are settled, so their events
 * still apply in stream order. Pure bookkeeping: no I/O, no timers.
 */
export class SpillRouter {
  private readonly lanes: number;
  private readonly batch: number;
  /** gamers with events not yet settled: their lane and how many */
  private readonly pending = new Map<string, { lane: number; events: number }>();

  constructor(lanes: number, batch: number) {
    this.lanes = lanes;
    this.batch = batch;
  }

  /** The lane of a gamer's next event; `waiting(lane)`: events queued in that lane. */
  route(gamerKey: string, waiting: (lane: number) => number): number {
    const held = this.pending.get(gamerKey);
    if (held) {
      held.events++;
      return held.lane;
    }
    let lane = 0;
    while (lane < this.lanes - 1 && waiting(lane) >= this.batch) lane++;
    this.pending.set(gamerKey, { lane, events: 1 });
    return lane;
  }

  /**
   * Whether the pull waits after an event went to `lane`, and for what: for any lane to make
   * room while a full batch waits in every lane (the store is behind); for this lane while two
   * wait in it (its gamers keep their lane while their events keep coming, so a backlog of a
   * few gamers fills one lane however idle the others are, and it must stay bounded).
   */
  mustWait(lane: number, waiting: (lane: number) => number): 'thisLane' | 'anyLane' | false {
    if (waiting(lane) >= 2 * this.batch) return 'thisLane';
    for (let i = 0; i < this.lanes; i++) if (waiting(i) < this.batch) return false;
    return 'anyLane';
  }

  /** The events of these gamers (one key per event) were settled: their next ones may take any lane. */
  settled(gamerKeys: Iterable<string>): void {
    for (const key of gamerKeys) {
      const held = this.pending.get(key);
      if (held && --held.events === 0) this.pending.delete(key);
    }
  }

  /** Gamers with events not yet settled (tests, metrics). */
  get gamersInFlight(): number {
    return this.pending.size;
  }
}
