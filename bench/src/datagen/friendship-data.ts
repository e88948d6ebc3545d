import type { Connection } from 'mongoose';
import { connectMongo } from '../../../libs/platform/src/connections.ts';
import { uuidv7 } from '../../../libs/platform/src/ids.ts';
import { displayNameKey } from '../../../services/friendship/src/domain/display-name.ts';
import { membersOf, pairKeyOf } from '../../../services/friendship/src/domain/relation-rules.ts';
import { createModels, type FriendshipModels, type GamerDoc, type RelationDoc } from '../../../services/friendship/src/repository/models.ts';
import type { Gamer } from '../stack.ts';
import { gamerName, seededUuid } from './ids.ts';

/*
 * Friendship data, written with the friendship service's own mongoose models (same
 * schemas with strict: 'throw', same indexes, same key functions), so the generated
 * documents cannot drift from what the service writes.
 *
 * The graph of one application with n gamers and R relations:
 *  - probe gamers (the last P indexes) with an exact number of friends (10, 100, 1,000),
 *    which the friend-list scenarios call;
 *  - every other gamer i is friends with i+1 … i+k (mod ring size), k = ⌊(R − probe
 *    relations) / ring size⌋, so each has 2k friends (18 at 100k gamers / 1M relations);
 *  - the remainder up to R are pending requests i → i+k+1 (one outgoing per gamer at most).
 * Pairs (i, i + ring/2) have no relation, which the request + accept scenario uses.
 */

export interface ProbeSpec {
  degree: number;
  count: number;
}

export interface FriendDatasetSpec {
  app: string;
  seed: string;
  gamers: number;
  relations: number;
  probes: ProbeSpec[];
}

export interface FriendDataset {
  spec: FriendDatasetSpec;
  ringSize: number;
  k: number;
  probeGamers: Map<number, Gamer[]>;
  accepted: number;
  pending: number;
  gamer(i: number): Gamer;
  /** gamers i and i + ring/2: no relation between them */
  strangerPair(i: number): [Gamer, Gamer];
}

export interface InsertStats {
  collection: string;
  docs: number;
  ms: number;
  docsPerSecond: number;
}

export function planFriendDataset(spec: FriendDatasetSpec): FriendDataset {
  const probeCount = spec.probes.reduce((s, p) => s + p.count, 0);
  const ringSize = spec.gamers - probeCount;
  const probeRelations = spec.probes.reduce((s, p) => s + p.count * p.degree, 0);
  if (ringSize < 3) throw new Error('dataset too small for its probes');
  for (const p of spec.probes) if (p.degree > ringSize) throw new Error(`probe degree ${p.degree} exceeds ${ringSize} ring gamers`);
  const k = Math.max(0, Math.min(Math.floor((spec.relations - probeRelations) / ringSize), Math.floor((ringSize - 1) / 4)));
  const accepted = k * ringSize + probeRelations;
  const pending = Math.max(0, Math.min(ringSize, spec.relations - accepted));
  const gamer = (i: number): Gamer => {
    const id = seededUuid(spec.seed, i);
    return { id, name: gamerName(spec.seed, i), avatar: `https://cdn.example.com/avatars/${id}.png` };
  };
  const probeGamers = new Map<number, Gamer[]>();
  let next = ringSize;
  for (const p of spec.probes) {
    const list = probeGamers.get(p.degree) ?? [];
    for (let c = 0; c < p.count; c++) list.push(gamer(next++));
    probeGamers.set(p.degree, list);
  }
  const half = Math.floor(ringSize / 2);
  return {
    spec,
    ringSize,
    k,
    probeGamers,
    accepted,
    pending,
    gamer,
    strangerPair: (i) => [gamer(i % ringSize), gamer((i + half) % ringSize)],
  };
}

/** Every relation of the plan as (requester index, addressee index, status), in insertion order. */
export function* relationPairs(plan: FriendDataset): Generator<[number, number, 'accepted' | 'pending']> {
  const { ringSize, k } = plan;
  for (let d = 1; d <= k; d++) for (let i = 0; i < ringSize; i++) yield [i, (i + d) % ringSize, 'accepted'];
  let probeIndex = ringSize;
  for (const p of plan.spec.probes) {
    const stride = Math.floor(ringSize / p.degree);
    for (let c = 0; c < p.count; c++, probeIndex++) {
      for (let t = 0; t < p.degree; t++) yield [(probeIndex * 7919 + t * stride) % ringSize, probeIndex, 'accepted'];
    }
  }
  for (let i = 0; i < plan.pending; i++) yield [i, (i + k + 1) % ringSize, 'pending'];
}

const YEAR_MS = 365 * 24 * 3600_000;

export class FriendshipWriter {
  readonly connection: Connection;
  readonly models: FriendshipModels;

  private constructor(connection: Connection, models: FriendshipModels) {
    this.connection = connection;
    this.models = models;
  }

  static async open(mongoUrl: string): Promise<FriendshipWriter> {
    const quiet = { info: () => {}, warn: () => {}, error: (o: unknown, m?: string) => console.error('mongodb:', m ?? o) };
    const connection = await connectMongo(mongoUrl, quiet as never);
    return new FriendshipWriter(connection, await createModels(connection));
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  async countApp(app: string): Promise<{ gamers: number; relations: number }> {
    const [gamers, relations] = await Promise.all([
      this.models.gamers.countDocuments({ applicationId: app }),
      this.models.relations.countDocuments({ applicationId: app }),
    ]);
    return { gamers, relations };
  }

  async countAll(): Promise<{ gamers: number; relations: number }> {
    const [gamers, relations] = await Promise.all([this.models.gamers.estimatedDocumentCount(), this.models.relations.estimatedDocumentCount()]);
    return { gamers, relations };
  }

  /** Inserts the plan's gamers and relations in batches; `onProgress` gets the fraction done. */
  async write(plan: FriendDataset, onProgress: (fraction: number, note: string) => void, batchSize = 1000, inFlight = 2): Promise<InsertStats[]> {
    const { app } = plan.spec;
    const now = Date.now();
    const total = plan.spec.gamers + plan.accepted + plan.pending;
    let done = 0;
    const stats: InsertStats[] = [];

    const gamerDocs = function* (): Generator<GamerDoc> {
      for (let i = 0; i < plan.spec.gamers; i++) {
        const g = plan.gamer(i);
        yield { applicationId: app, gamerId: g.id, displayName: g.name, displayNameKey: displayNameKey(g.name), avatar: g.avatar, updatedAt: new Date(now - ((i * 7919) % YEAR_MS)) };
      }
    };
    const relationDocs = function* (): Generator<RelationDoc> {
      let n = 0;
      for (const [a, b, status] of relationPairs(plan)) {
        const requester = plan.gamer(a).id;
        const addressee = plan.gamer(b).id;
        const created = now - YEAR_MS + Math.floor((n++ / total) * YEAR_MS);
        yield {
          _id: uuidv7(created),
          applicationId: app,
          pairKey: pairKeyOf(requester, addressee),
          members: membersOf(requester, addressee),
          requester,
          addressee,
          status,
          createdAt: new Date(created),
          updatedAt: new Date(created),
        };
      }
    };

    const insertAll = async <T>(name: string, docs: Generator<T>, insert: (batch: T[]) => Promise<unknown>): Promise<void> => {
      const t0 = performance.now();
      let count = 0;
      const running = new Set<Promise<unknown>>();
      let batch: T[] = [];
      const flush = async () => {
        const b = batch;
        batch = [];
        const p = insert(b).then(() => {
          done += b.length;
          onProgress(done / total, `${name} ${Math.round((done / total) * 100)}%`);
        });
        running.add(p);
        void p.finally(() => running.delete(p)).catch(() => undefined);
        if (running.size >= inFlight) await Promise.race(running);
      };
      for (const doc of docs) {
        batch.push(doc);
        count++;
        if (batch.length >= batchSize) await flush();
      }
      if (batch.length) await flush();
      await Promise.all(running);
      const ms = performance.now() - t0;
      stats.push({ collection: name, docs: count, ms, docsPerSecond: count / (ms / 1000) });
    };

    // ordered: false keeps going past a duplicate (a rerun into a partly filled database)
    await insertAll('gamers', gamerDocs(), (b) => this.models.gamers.insertMany(b, { ordered: false }).catch(ignoreDuplicates));
    await insertAll('relations', relationDocs(), (b) => this.models.relations.insertMany(b, { ordered: false }).catch(ignoreDuplicates));
    return stats;
  }
}

/** Swallows the duplicate-key errors of an unordered insert into a partly filled database. */
export function ignoreDuplicates(error: unknown): void {
  const e = error as { code?: number; writeErrors?: { code?: number; err?: { code?: number } }[] };
  if (e.code === 11000) return;
  if (Array.isArray(e.writeErrors) && e.writeErrors.every((w) => (w.code ?? w.err?.code) === 11000)) return;
  throw error;
}
