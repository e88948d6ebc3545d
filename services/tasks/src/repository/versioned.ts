import type { mongo } from 'mongoose';
import { isDuplicateKey } from './store.ts';

/** A version token: the full document as it is at `version`, written once. */
export interface VersionTokenDoc {
  _id: string;
  state: Record<string, unknown>;
  createdAt: Date;
}

type Versioned = { _id: string; version: number };

const MAX_CHAIN = 1000;

/**
 * Compare-and-set for documents on a store whose updates are not atomic.
 *
 * FerretDB v1 applies an update by reading the document, changing it in its own process and
 * writing it back: two concurrent conditional updates can both pass their filter, so a
 * version field in the filter does not serialise writers. The one atomic operation both
 * FerretDB v1 and MongoDB have is an insert refused by a unique key. So moving a document
 * from version v to v+1 first inserts the token `<id>@<v+1>` carrying the new state: of
 * any number of concurrent writers exactly one inserts it. The winner then writes the
 * document itself, then checks no newer token appeared meanwhile (if one did, its state
 * is stored again, so a late write never leaves the document behind). A writer that loses
 * re-reads with `refresh`, which follows the token chain past the stored document (it
 * lags only after a crash between the two writes) and repairs it.
 * Tokens stay until the sweep deletes those older than VERSION_TOKEN_RETENTION_MS, each
 * document first rolled forward (a crash between token and document with no later writer
 * must not lose the token's state). They must outlive any delayed write: a token deleted
 * while a late write can still move its document back could be taken again by a writer
 * reading that stale document (seen under contention when they were deleted a few
 * versions behind the newest).
 */
export class VersionedCollection<D extends Versioned> {
  private readonly docs: mongo.Collection<D>;
  private readonly tokens: mongo.Collection<VersionTokenDoc>;

  constructor(docs: mongo.Collection<D>, tokens: mongo.Collection<VersionTokenDoc>) {
    this.docs = docs;
    this.tokens = tokens;
  }

  private static key(id: string, version: number): string {
    return `${id}@${version}`;
  }

  /** The stored document (current unless a writer crashed or raced; see `refresh`). */
  async get(id: string): Promise<D | null> {
    return (await this.docs.findOne({ _id: id } as mongo.Filter<D>)) as D | null;
  }

  /** The current state: the stored document rolled forward over newer tokens, and repaired. */
  async refresh(id: string): Promise<D | null> {
    const doc = await this.get(id);
    if (!doc) return null;
    const next = await this.newer(doc);
    return next ? this.write(next) : doc;
  }

  /** The newest token after `doc`'s version, if any. */
  private async newer(doc: D): Promise<D | null> {
    let found: D | null = null;
    for (let i = 0; i < MAX_CHAIN; i++) {
      const token = await this.tokens.findOne({ _id: VersionedCollection.key(doc._id, (found ?? doc).version + 1) });
      if (!token) break;
      found = token.state as D;
    }
    return found;
  }

  /**
   * Moves a document to `next` (read at next.version - 1). False when another writer moved
   * it first: `refresh` and decide again.
   */
  async advance(next: D): Promise<boolean> {
    try {
      await this.tokens.insertOne({ _id: VersionedCollection.key(next._id, next.version), state: next as unknown as Record<string, unknown>, createdAt: new Date() });
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
    await this.write(next);
    return true;
  }

  /**
   * Stores a state, then looks for a newer token: a writer that got its token in before this
   * write landed may have stored its newer state first, which this write just overwrote; so
   * the newest state is stored again. A writer whose token comes after that look stores
   * after it, so the stored document never stays behind. Answers the state stored last.
   */
  private async write(state: D): Promise<D> {
    let current = state;
    for (let i = 0; i < MAX_CHAIN; i++) {
      const { _id, ...rest } = current;
      await this.docs.replaceOne({ _id } as mongo.Filter<D>, rest as unknown as mongo.WithoutId<D>);
      const next = await this.newer(current);
      if (!next) break;
      current = next;
    }
    return current;
  }

  /** Deletes tokens created before `before`, each document first brought up to its newest token. */
  async prune(before: Date, batch = 2000): Promise<number> {
    let pruned = 0;
    for (;;) {
      const old = await this.tokens.find({ createdAt: { $lt: before } }, { projection: { _id: 1 } }).limit(batch).toArray();
      const byDocument = new Map<string, string[]>();
      for (const { _id } of old) {
        const id = _id.slice(0, _id.lastIndexOf('@'));
        byDocument.set(id, [...(byDocument.get(id) ?? []), _id]);
      }
      for (const [id, tokenIds] of byDocument) {
        await this.refresh(id);
        for (const tokenId of tokenIds) pruned += (await this.tokens.deleteOne({ _id: tokenId })).deletedCount;
      }
      if (old.length < batch) return pruned;
    }
  }
}
