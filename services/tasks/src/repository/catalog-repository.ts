import type { CatalogEntry } from '../domain/model.ts';
import { fromDoc, toDoc, type CatalogDoc, type Store } from './store.ts';

const toEntry = (doc: CatalogDoc) => fromDoc<CatalogEntry>(doc);

export type EntryWrite = 'written' | 'changed' | 'notFound';

/** The application task catalog: one document per top-level task, children embedded. */
export class CatalogRepository {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  /**
   * The live (not archived) entries of an application: what every catalog read, assign and
   * achievement tracking works from. Archived entries are left out by the query, so a
   * catalog that many archives grew costs its readers nothing for them (gamer tasks hold a
   * copy of their task; a repair that needs an archived entry reads it by id).
   */
  async listLive(applicationId: string): Promise<CatalogEntry[]> {
    const entries = (await this.store.catalog.find({ applicationId, archived: false }).toArray()).map(toEntry);
    return entries.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  }

  /** The entry holding `taskId`, as itself or as one of its children; archived ones included. */
  async findByTaskId(applicationId: string, taskId: string): Promise<CatalogEntry | null> {
    const doc = await this.store.catalog.findOne({ applicationId, $or: [{ _id: taskId }, { 'children.id': taskId }] });
    return doc ? toEntry(doc) : null;
  }

  /** Live (not archived) top-level entries of an application. */
  async countLive(applicationId: string): Promise<number> {
    return this.store.catalog.countDocuments({ applicationId, archived: false });
  }

  async insert(entry: CatalogEntry): Promise<void> {
    await this.store.catalog.insertOne(toDoc(entry));
  }

  /**
   * Stores an edited entry, on condition that nobody changed it since it was read (its
   * `updatedAt` is still `readAt`): 'changed' otherwise, for the caller to report, since an
   * edit is validated against the whole entry as it was read.
   */
  async replaceIfUnchanged(next: CatalogEntry, readAt: Date): Promise<EntryWrite> {
    const { _id, ...fields } = toDoc(next);
    const result = await this.store.catalog.updateOne({ _id, applicationId: next.applicationId, archived: false, updatedAt: readAt }, { $set: fields });
    if (result.matchedCount === 1) return 'written';
    const current = await this.store.catalog.findOne({ _id, applicationId: next.applicationId, archived: false }, { projection: { _id: 1 } });
    return current ? 'changed' : 'notFound';
  }

  /** Archives a live top-level entry: 'notFound' when there is none (or it was archived first). */
  async archive(applicationId: string, entryId: string, now: Date): Promise<EntryWrite> {
    const result = await this.store.catalog.updateOne({ _id: entryId, applicationId, archived: false }, { $set: { archived: true, updatedAt: now } });
    return result.matchedCount === 1 ? 'written' : 'notFound';
  }

  async seasonEnd(applicationId: string): Promise<Date | null> {
    const doc = await this.store.applications.findOne({ _id: applicationId });
    return doc?.seasonEndsAt ?? null;
  }

  async setSeasonEnd(applicationId: string, endsAt: Date, now: Date): Promise<void> {
    await this.store.applications.updateOne({ _id: applicationId }, { $set: { seasonEndsAt: endsAt, updatedAt: now } }, { upsert: true });
  }
}
