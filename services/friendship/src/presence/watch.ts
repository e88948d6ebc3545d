import { setTimeout as sleep } from 'node:timers/promises';
import { natsNames } from '@gfts/contracts';
import { jetstream, StorageType } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import type { LastSeen } from '../repository/gamers.ts';
import type { BoardUpdate, PresenceBoard, PresenceChange } from './board.ts';

type Logger = Pick<FastifyBaseLogger, 'info' | 'warn'>;

export interface PresenceWatchOptions {
  nc: NatsConnection;
  prefix: string;
  board: PresenceBoard;
  onlineWindowMs: number;
  /** servers holding the bucket, when this service creates it */
  replicas: number;
  /** period of the sweep that moves ended sessions to the directory */
  sweepMs: number;
  /** stores ended sessions (the directory's lastSeenAt) */
  persist: (ended: LastSeen[]) => Promise<void>;
  /** a gamer went online or offline on the board (the announcer settles and announces it) */
  changed?: (change: PresenceChange) => void;
  log: Logger;
}

export interface PresenceWatch {
  close(): Promise<void>;
}

const RETRY_MS = 2_000;
/** `<applicationId>.<gamerId>.<holder>`: a notifications replica holding the gamer's sockets */
const KEY = /^([0-9a-f-]{36}\.[0-9a-f-]{36})\.([A-Za-z0-9-]{1,64})$/;

/**
 * Feeds this replica's presence board from the presence bucket: the bucket's current
 * holds at start, then every put (a notifications replica holds or refreshes a gamer) and
 * delete (it released them), so a friend list reads presence from memory. The bucket keeps
 * a hold for the online window only (its max age), so a replica that starts late loads
 * exactly the gamers who are online. Creates the bucket if it is
 * missing; retries in the background while NATS or JetStream is away (presence then
 * shows what the board and the directory hold, never an error).
 */
export function startPresenceWatch(opts: PresenceWatchOptions): PresenceWatch {
  const stop = new AbortController();
  const names = natsNames(opts.prefix);
  let current: { stop(): void } | undefined;

  const persist = (ended: LastSeen[]) => {
    if (ended.length === 0) return;
    opts.persist(ended).catch((error: unknown) => opts.log.warn({ err: error, sessions: ended.length }, 'last-seen times not stored'));
  };
  const apply = (update: BoardUpdate) => {
    persist(update.ended);
    if (update.change) opts.changed?.(update.change);
  };

  async function watchOnce(): Promise<void> {
    const kvm = new Kvm(jetstream(opts.nc));
    const limits = { history: 1, ttl: opts.onlineWindowMs, storage: StorageType.Memory, replicas: opts.replicas, allow_direct: true };
    // An existing bucket keeps the settings it was created with (docs/operations.md, Presence).
    const kv = await kvm.create(names.presenceBucket, limits).catch(() => kvm.open(names.presenceBucket));
    const updates = await kv.watch({ ignoreDeletes: false });
    current = updates;
    opts.log.info({ bucket: names.presenceBucket }, 'presence watch started');
    for await (const entry of updates) {
      const match = KEY.exec(entry.key);
      if (!match) continue;
      const [, gamer, holder] = match as unknown as [string, string, string];
      if (entry.operation === 'PUT') {
        const at = Number(entry.string());
        if (Number.isSafeInteger(at)) apply(opts.board.hold(gamer, holder, at));
      } else {
        // DEL or PURGE: the replica released the gamer; the marker's time is when
        apply(opts.board.release(gamer, holder, entry.created.getTime()));
      }
    }
  }

  const running = (async () => {
    while (!stop.signal.aborted) {
      try {
        await watchOnce();
      } catch (error) {
        if (!stop.signal.aborted) opts.log.warn({ err: error }, 'presence watch failed; retrying');
      }
      await sleep(RETRY_MS, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  })();

  const sweeper = setInterval(() => {
    for (const update of opts.board.sweep(Date.now())) apply(update);
  }, opts.sweepMs);
  sweeper.unref();

  return {
    async close() {
      stop.abort();
      clearInterval(sweeper);
      current?.stop();
      await running;
    },
  };
}
