import type { CatalogEntry } from '../domain/model.ts';
import { fromDoc, toDoc, type CatalogDoc, type Store } from './store.ts';
import { VersionedCollection } from './versioned.ts';

const toEntry = (doc: CatalogDoc) => fromDoc<CatalogEntry>(doc);

/** The application task catalog: one document per top-level task, children embedded. */
export class CatalogRepository {
  private readonly store: Store;
  private readonly versioned: VersionedCollection<CatalogDoc>;

  constructor(store: Store) {
    this.store = store;
    this.versioned = new VersionedCollection(store.catalog, store.catalogVersions);
  }

  /** Every entry of an application, archived ones included (held gamer tasks may name them). */
  async list(applicationId: string): Promise<CatalogEntry[]> {
    const entries = (await this.store.catalog.find({ applicationId }).toArray()).map(toEntry);
    return entries.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  }

  /** The entry holding `taskId`, as itself or as one of its children. */
  async findByTaskId(applicationId: string, taskId: string): Promise<CatalogEntry | null> {
    const doc = await this.store.catalog.findOne({ applicationId, $or: [{ _id: taskId }, { 'children.id': taskId }] });
    return doc ? toEntry(doc) : null;
  }

  /** The entry's current state after losing a write race. */
  async refresh(entryId: string): Promise<CatalogEntry | null> {
    const doc = await this.versioned.refresh(entryId);
    return doc ? toEntry(doc) : null;
  }

  async insert(entry: CatalogEntry): Promise<void> {
    await this.store.catalog.insertOne(toDoc(entry));
  }

  /** Stores `next` (next.version = the read version + 1) unless someone changed the entry first. */
  async advance(next: CatalogEntry): Promise<boolean> {
    return this.versioned.advance(toDoc(next));
  }

  async seasonEnd(applicationId: string): Promise<Date | null> {
    const doc = await this.store.applications.findOne({ _id: applicationId });
    return doc?.seasonEndsAt ?? null;
  }

  async setSeasonEnd(applicationId: string, endsAt: Date, now: Date): Promise<void> {
    await this.store.applications.updateOne({ _id: applicationId }, { $set: { seasonEndsAt: endsAt, updatedAt: now } }, { upsert: true });
  }

  async pruneVersions(before: Date): Promise<number> {
    return this.versioned.prune(before);
  }
}
