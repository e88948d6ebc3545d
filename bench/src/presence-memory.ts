/**
 * Heap held by the friendship service's presence board per online gamer: the board
 * (services/friendship/src/presence/board.ts) filled with N gamers held by one notifications
 * replica, each key taken as the presence watch (presence/watch.ts) takes it: the message's
 * subject decoded from bytes, the KV key cut from it (nats.js), parsed, and handed over as the
 * watch hands it. The heap is measured after full collections before and after, each N in a
 * process of its own. Sizes PRESENCE_MAX_TRACKED against the pod's memory (docs/deploy.md,
 * "Memory"). No stack needed; a few seconds.
 *
 *   node bench/src/presence-memory.ts [--gamers N,N...] [--as-sliced]   (default 100000,300000)
 *
 * --as-sliced hands the board the key as parsed, without the watch's own copy (how it was
 * before 2026-11-27). Prints one line per N: bytes per gamer, and MiB at that many.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { natsNames, parsePresenceKey, presenceHoldKey } from '@gfts/contracts';
import { gamerKey, ownCopy, presenceBoard } from '../../services/friendship/src/presence/board.ts';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(readFileSync(new URL(import.meta.url), 'utf8').split('*/')[0]!.replace(/^\/\*\*|^ \* ?/gm, '').trim());
  process.exit(0);
}
const at = args.indexOf('--gamers');
const counts = (at >= 0 ? args[at + 1] ?? '' : '100000,300000').split(',').map(Number);
const asSliced = args.includes('--as-sliced');
if (counts.some((n) => !Number.isInteger(n) || n < 1)) {
  console.error('usage: node bench/src/presence-memory.ts [--gamers N,N...]');
  process.exit(2);
}
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc || counts.length > 1) {
  // one process per N (a board measured before stays alive into the next measurement), with
  // full collections on demand
  for (const n of counts) {
    const one = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--gamers', String(n), ...(asSliced ? ['--as-sliced'] : [])], { stdio: 'inherit' });
    if (one.status !== 0) process.exit(one.status ?? 1);
  }
  process.exit(0);
}
const bytes = new TextEncoder();
const text = new TextDecoder();

const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
for (const n of counts) {
  const app = randomUUID();
  const holder = randomUUID();
  const before = heapAfterGc();
  const board = presenceBoard({ onlineWindowMs: 60_000, maxEntries: n });
  const now = Date.now();
  board.beat(holder, now);
  // as nats.js hands a KV entry's key: `$KV.<bucket>.` cut off the subject it decoded
  const prefix = `$KV.${natsNames('gfts').presenceBucket}.`;
  let last = '';
  for (let i = 0; i < n; i++) {
    last = randomUUID();
    const subject = text.decode(bytes.encode(prefix + presenceHoldKey(holder, app, last)));
    const key = parsePresenceKey(subject.substring(prefix.length));
    if (key?.kind !== 'hold') throw new Error(`not a hold key: ${subject}`);
    const boardKey = gamerKey(key.applicationId, key.gamerId);
    board.hold(asSliced ? boardKey : ownCopy(boardKey), key.holder, now);
  }
  const held = heapAfterGc() - before;
  // after the measurement, so the board is alive through it; and it does hold them
  if (!board.isOnline(app, last, now)) throw new Error('the board lost a gamer it was given');
  console.log(`${n.toLocaleString('en-US')} online gamers${asSliced ? ' (keys as parsed)' : ''}: ${Math.round(held / n)} bytes of heap each, ${(held / 1_048_576).toFixed(0)} MiB in all`);
}
