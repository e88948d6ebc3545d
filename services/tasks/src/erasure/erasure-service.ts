import { ErrorCode, type ErasureJob, type GamerErasedEvent, type NatsNames } from '@gfts/contracts';
import { AppError, notFound, uuidv7 } from '@gfts/platform';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { FastifyBaseLogger } from 'fastify';
import { erasureJobView, leftOverPublication, pendingServices, type ErasureJobRecord } from '../domain/erasure-job.ts';
import type { ErasureJobRepository } from '../repository/erasure-job-repository.ts';

/**
 * DELETE /{applicationId}/gamers/{gamerId} and GET on its job (docs/gamer-erasure.md): the
 * job is stored, then `gamer.erased` goes to JetStream (message id = jobId); each service
 * erases on its own and reports, and the job shows who has.
 */
export class ErasureService {
  private readonly deps: { jobs: ErasureJobRepository; js: JetStreamClient; names: NatsNames; expected: string[]; log: FastifyBaseLogger };

  constructor(deps: ErasureService['deps']) {
    this.deps = deps;
  }

  /**
   * Stores the job, then publishes its event. A publish that fails may still have been stored
   * by JetStream (a timeout after the store): the erasure may be running, so the job stays,
   * unpublished, and the sweep publishes it again (the message id makes a repeat a no-op);
   * the answer is 503 naming the job. Once JetStream acknowledged, the answer is 202 even if
   * marking the job published fails: the sweep's repeat is dropped as a duplicate.
   */
  async request(applicationId: string, gamerId: string): Promise<ErasureJob> {
    const job: ErasureJobRecord = { id: uuidv7(), applicationId, gamerId, requestedAt: new Date(), expected: this.deps.expected, done: {} };
    await this.deps.jobs.insert(job);
    try {
      await this.publishEvent(job);
    } catch (error) {
      this.deps.log.warn({ err: error, jobId: job.id }, 'gamer.erased not acknowledged by JetStream; the job stays for the sweep to publish again');
      throw new AppError(503, ErrorCode.SERVICE_UNAVAILABLE, `the event bus did not confirm the erasure; it may have started, and job ${job.id} will be published again until it is: follow it with GET /api/v1/${applicationId}/gamers/erasures/${job.id}`);
    }
    try {
      await this.deps.jobs.markPublished(job.id);
    } catch (error) {
      this.deps.log.warn({ err: error, jobId: job.id }, 'gamer.erased published but the job not marked so; the sweep publishes it again (a duplicate JetStream drops)');
    }
    return erasureJobView(job);
  }

  async get(applicationId: string, jobId: string): Promise<ErasureJob> {
    const job = await this.deps.jobs.find(applicationId, jobId);
    if (!job) throw notFound('no such erasure job');
    return erasureJobView(job);
  }

  /**
   * Publishes the events of jobs left unpublished (a crash, a publish not acknowledged; the
   * sweep); JetStream drops a repeat by its message id within its duplicate window. A job
   * some service reported was published (leftOverPublication).
   */
  async publishLeftOver(before: Date): Promise<number> {
    const jobs = await this.deps.jobs.unpublished(before);
    let published = 0;
    for (const job of jobs) {
      const next = leftOverPublication(job);
      if (next.kind === 'complete') {
        await this.deps.jobs.markPublished(job.id);
        await this.deps.jobs.markComplete(job.id);
        continue;
      }
      await this.publish(job, next.services);
      published++;
    }
    return published;
  }

  /**
   * Publishes again the events of jobs some service has not reported, last published at or
   * before `before`: `GFTS_GAMERS` keeps an event GAMERS_STREAM_MAX_AGE_MS (30 days), handled
   * or not, so a service down longer would never erase, and its job would stay pending (until
   * 2026-11-28). The event names the services that have not reported; the others take it
   * and do nothing. Jobs every expected service reported are marked complete instead.
   */
  async republishUnfinished(before: Date): Promise<number> {
    // Only the services that have not reported erase again: the gamer may have come back
    // since (an erasure does not ban), and until 2026-11-29 every service erased her anew each
    // week for as long as one service (down, failing, or listed and never deployed) did not report.
    let published = 0;
    for (const job of await this.deps.jobs.unfinished(before)) {
      if (erasureJobView(job).status === 'completed') {
        await this.deps.jobs.markComplete(job.id);
        continue;
      }
      // its own message id: the first publication's is the jobId, and within the stream's
      // duplicate window a repeat of it is dropped; replicas sweeping at once share this one
      await this.publish(job, pendingServices(job), `${job.id}:${job.publishedAt?.getTime() ?? 0}`);
      published++;
    }
    return published;
  }

  /** A service's report (gamer.erasure.completed). */
  async reported(event: { jobId: string; applicationId: string; service: string; completedAt: string }): Promise<void> {
    const job = await this.deps.jobs.markDone(event.jobId, event.applicationId, event.service, new Date(event.completedAt));
    if (job && erasureJobView(job).status === 'completed') await this.deps.jobs.markComplete(job.id);
  }

  private async publish(job: ErasureJobRecord, services?: string[], msgID = job.id): Promise<void> {
    await this.publishEvent(job, services, msgID);
    await this.deps.jobs.markPublished(job.id);
  }

  /** `services`: the ones still to erase (a republish); absent, every service erases. */
  private async publishEvent(job: ErasureJobRecord, services?: string[], msgID = job.id): Promise<void> {
    const event: GamerErasedEvent = { jobId: job.id, applicationId: job.applicationId, gamerId: job.gamerId, requestedAt: job.requestedAt.toISOString(), ...(services ? { services } : {}) };
    await this.deps.js.publish(this.deps.names.gamerErased, JSON.stringify(event), { msgID, timeout: 5_000 });
  }
}
