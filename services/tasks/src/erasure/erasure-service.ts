import { ErrorCode, type ErasureJob, type GamerErasedEvent, type NatsNames } from '@gfts/contracts';
import { AppError, notFound, uuidv7 } from '@gfts/platform';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { FastifyBaseLogger } from 'fastify';
import { erasureJobView, type ErasureJobRecord } from '../domain/erasure-job.ts';
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

  async request(applicationId: string, gamerId: string): Promise<ErasureJob> {
    const job: ErasureJobRecord = { id: uuidv7(), applicationId, gamerId, requestedAt: new Date(), expected: this.deps.expected, done: {} };
    await this.deps.jobs.insert(job);
    try {
      await this.publish(job);
    } catch (error) {
      this.deps.log.warn({ err: error, jobId: job.id }, 'gamer.erased not published; the erasure was not started');
      await this.deps.jobs.remove(job.id);
      throw new AppError(503, ErrorCode.SERVICE_UNAVAILABLE, 'the event bus is unavailable; nothing was erased, try again');
    }
    return erasureJobView(job);
  }

  async get(applicationId: string, jobId: string): Promise<ErasureJob> {
    const job = await this.deps.jobs.find(applicationId, jobId);
    if (!job) throw notFound('no such erasure job');
    return erasureJobView(job);
  }

  /** Publishes the events of jobs a crash left unpublished (the sweep); JetStream drops a repeat by its message id. */
  async publishLeftOver(before: Date): Promise<number> {
    const jobs = await this.deps.jobs.unpublished(before);
    for (const job of jobs) await this.publish(job);
    return jobs.length;
  }

  /** A service's report (gamer.erasure.completed). */
  async reported(event: { jobId: string; applicationId: string; service: string; completedAt: string }): Promise<void> {
    await this.deps.jobs.markDone(event.jobId, event.applicationId, event.service, new Date(event.completedAt));
  }

  private async publish(job: ErasureJobRecord): Promise<void> {
    const event: GamerErasedEvent = { jobId: job.id, applicationId: job.applicationId, gamerId: job.gamerId, requestedAt: job.requestedAt.toISOString() };
    await this.deps.js.publish(this.deps.names.gamerErased, JSON.stringify(event), { msgID: job.id, timeout: 5_000 });
    await this.deps.jobs.markPublished(job.id);
  }
}
