/** Where a piped upstream socket's reading stood when the gateway last looked at it. */
export interface LastHeard {
  /** the socket's bytesRead at that look */
  bytes: number;
  /** when bytesRead last moved (ms since epoch) */
  at: number;
}

/**
 * One look at a piped upstream socket: bytes read since the last look mean it was heard now;
 * no byte for `idleMs` means it is silent. The notifications service pings every socket each
 * heartbeat, so a live upstream is never silent for long; a silent one vanished without a FIN
 * (node lost, network cut), or its client took nothing for that long (back-pressure stops the
 * reading).
 */
export function lookAt(last: LastHeard, bytesRead: number, now: number, idleMs: number): LastHeard | 'silent' {
  if (bytesRead !== last.bytes) return { bytes: bytesRead, at: now };
  return now - last.at >= idleMs ? 'silent' : last;
}
