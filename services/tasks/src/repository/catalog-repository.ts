import type { CatalogEntry } from '../domain/model.ts';
import { fromDoc, toDoc, type Store } from './store.ts';

/** The application task catalog: one document per top-level task, children embedded. */
export class CatalogRepository {
  private readonly store: Store;
  constructor(store: Store) {
    this.store = store;
  }

  /** Every entry of an application, archived ones included (held gamer tasks may name them). */
  async list(applicationId: string): Promise<CatalogEntry[]> {
    const docs = await this.store.catalog.find({ applicationId }).sort({ createdAt: 1, _id: 1 }).toArray();
    return docs.map((d) => fromDoc<CatalogEntry>(d));
  }

  /** The entry holding `taskId`, as itself or as one of its children. */
  async findByTaskId(applicationId: string, taskId: string): Promise<CatalogEntry | null> {
    const doc = await this.store.catalog.findOne({ applicationId, $or: [{ _id: taskId }, { 'children.id': taskId }] });
    return doc ? fromDoc<CatalogEntry>(doc) : null;
  }

  async insert(entry: CatalogEntry): Promise<void> {
    await this.store.catalog.insertOne(toDoc(entry));
  }

  /** Replaces an entry only if nobody changed it since it was read (its version). */
  async replace(next: CatalogEntry, expectedVersion: number): Promise<boolean> {
    const { _id, ...rest } = toDoc(next);
    const result = await this.store.catalog.replaceOne({ _id, version: expectedVersion }, rest);
    return result.matchedCount === 1;
  }

  async archive(applicationId: string, entryId: string, now: Date): Promise<boolean> {
    const result = await this.store.catalog.updateOne(
      { _id: entryId, applicationId, archived: false },
      { $set: { archived: true, updatedAt: now }, $inc: { version: 1 } },
    );
    return result.matchedCount === 1;
  }

  async seasonEnd(applicationId: string): Promise<Date | null> {
    const doc = await this.store.applications.findOne({ _id: applicationId });
    return doc?.seasonEndsAt ?? null;
  }

  async setSeasonEnd(applicationId: string, endsAt: Date, now: Date): Promise<void> {
    await this.store.applications.updateOne({ _id: applicationId }, { $set: { seasonEndsAt: endsAt, updatedAt: now } }, { upsert: true });
  }
}
