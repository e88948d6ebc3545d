import type { ErasureJobRecord } from '../domain/erasure-job.ts';
import type { GamerRef } from './gamer-task-repository.ts';
import { CLOCK_SKEW_MARGIN_MS, type ErasureJobDoc, type Store } from './store.ts';

const toRecord = (doc: ErasureJobDoc): ErasureJobRecord => ({
  id: doc._id,
  applicationId: doc.applicationId,
  gamerId: doc.gamerId,
  requestedAt: doc.requestedAt,
  expected: doc.expected ?? [],
  done: doc.done ?? {},
  ...(doc.publishedAt ? { publishedAt: doc.publishedAt } : {}),
});


/** Erasure jobs: written once, then each service's report `$set`s its own field. */
export class ErasureJobRepository {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  async insert(job: ErasureJobRecord): Promise<void> {
    const { id, ...fields } = job;
    await this.store.erasureJobs.insertOne({ _id: id, ...fields, published: false });
  }

  async markPublished(id: string, at: Date = new Date()): Promise<void> {
    await this.store.erasureJobs.updateOne({ _id: id }, { $set: { published: true, publishedAt: at } });
  }

  /** A job every expected service reported: the sweep no longer publishes it again. */
  async markComplete(id: string): Promise<void> {
    await this.store.erasureJobs.updateOne({ _id: id }, { $set: { complete: true } });
  }

  /** The job, only within its application (another application's job is not found). */
  async find(applicationId: string, id: string): Promise<ErasureJobRecord | null> {
    const doc = await this.store.erasureJobs.findOne({ _id: id, applicationId });
    return doc ? toRecord(doc) : null;
  }

  /**
   * Records a service's report. `service` is a name the contract's pattern allowed (lower
   * case letters, digits, '-'), so it is safe as a field path; the first report's time stays.
   */
  async markDone(id: string, applicationId: string, service: string, at: Date): Promise<ErasureJobRecord | null> {
    const doc = await this.store.erasureJobs.findOneAndUpdate(
      { _id: id, applicationId, [`done.${service}`]: { $exists: false } },
      { $set: { [`done.${service}`]: at } },
      { returnDocument: 'after' },
    );
    return doc ? toRecord(doc) : null;
  }

  /**
   * Published jobs not every expected service has reported, published last at or before
   * `before` (jobs of before 2026-11-28: requested then), at most `limit`; the rest wait for
   * the next sweep.
   */
  async unfinished(before: Date, limit = 100): Promise<ErasureJobRecord[]> {
    const docs = await this.store.erasureJobs
      .find({ published: true, complete: { $ne: true }, $or: [{ publishedAt: { $lte: before } }, { publishedAt: { $exists: false }, requestedAt: { $lte: before } }] })
      .limit(limit)
      .toArray();
    return docs.map(toRecord);
  }

  /**
   * Whether an erasure of the gamer may have run since `since`: a job whose tasks part is not
   * reported done yet, or was at or after it (an erasure done before that time, of a gamer who
   * played on, is not one).
   */
  async erasingSince(owner: GamerRef, since: Date): Promise<boolean> {
    // times of other replicas' clocks: a minute's margin for their skew
    const after = new Date(since.getTime() - CLOCK_SKEW_MARGIN_MS);
    const job = await this.store.erasureJobs.findOne(
      // a job published again (unfinished after days) erases again only where a service has not
      // reported (until 2026-11-29 everywhere, so its publication counted here too)
      { applicationId: owner.applicationId, gamerId: owner.gamerId, $or: [{ 'done.tasks': { $exists: false } }, { 'done.tasks': { $gte: after } }] },
      { projection: { _id: 1 } },
    );
    return job !== null;
  }

  /** Jobs whose event is not known to be in JetStream (a crash after the insert, a publish not acknowledged), requested at or before `before`. */
  async unpublished(before: Date, limit = 100): Promise<ErasureJobRecord[]> {
    return (await this.store.erasureJobs.find({ published: false, requestedAt: { $lte: before } }).limit(limit).toArray()).map(toRecord);
  }
}
