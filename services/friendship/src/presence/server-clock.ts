/**
 * The NATS server's time as this replica can tell it, to compare with the times the server
 * stamps on the presence bucket's entries (the board's times): the stamp of the latest entry
 * heard live, plus the time elapsed here since it arrived, on a monotonic clock. Until an
 * entry is heard, this replica's wall clock. Until 2026-11-29 the stamps were compared with
 * the wall clock: the skew between the writers and the server was gone, but one between this
 * replica and the server took its place (a pod 45 s ahead ended every notifications replica
 * at each sweep, a pod behind kept a crashed one's gamers online that much longer).
 */
export function serverClock(monotonic: () => number = () => performance.now(), wall: () => number = () => Date.now()) {
  /** stamp minus the monotonic time it arrived at */
  let offset: number | undefined;
  return {
    /** An entry the server stamped `stamp` (epoch ms) arrived just now (live, not a load of older ones). */
    heard(stamp: number): void {
      offset = stamp - monotonic();
    },
    /** epoch ms, on the server's clock */
    now(): number {
      return offset === undefined ? wall() : monotonic() + offset;
    },
    /** whether an entry was heard: until then `now` is this replica's wall clock */
    get set(): boolean {
      return offset !== undefined;
    },
  };
}
export type ServerClock = ReturnType<typeof serverClock>;
