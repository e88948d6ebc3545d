import type { ErasureJob } from '@gfts/contracts';

/** What is stored of an erasure job. */
export interface ErasureJobRecord {
  id: string;
  applicationId: string;
  gamerId: string;
  requestedAt: Date;
  /** the services it waits for (ERASURE_SERVICES when it was made) */
  expected: string[];
  /** when each service that reported did */
  done: Record<string, Date>;
  /** when its event was last published (absent: not yet, or a job of before 2026-11-28) */
  publishedAt?: Date;
}

/** The services a job still waits for. */
export function pendingServices(job: Pick<ErasureJobRecord, 'expected' | 'done'>): string[] {
  return job.expected.filter((s) => !job.done[s]);
}

/**
 * What the sweep does with a job whose event is not known to be in JetStream: a service that
 * reported it saw the event, so its publish landed (its acknowledgement or the mark after it
 * did not), and a publish again past the stream's 2-minute duplicate window would be stored
 * anew: every service would erase the gamer again, who may be back. So a job every expected
 * service reported is only marked; one some reported is published for the others alone; one
 * nobody reported, for every service.
 */
export function leftOverPublication(job: Pick<ErasureJobRecord, 'expected' | 'done'>): { kind: 'complete' } | { kind: 'publish'; services?: string[] } {
  const pending = pendingServices(job);
  if (pending.length === 0) return { kind: 'complete' };
  if (Object.keys(job.done).length === 0) return { kind: 'publish' };
  return { kind: 'publish', services: pending };
}

/**
 * A job as GET answers it: completed once every expected service reported, at the last of
 * their reports; services that reported without being expected (one deployed since) are
 * listed after the expected ones.
 */
export function erasureJobView(job: ErasureJobRecord): ErasureJob {
  const reported = Object.keys(job.done).filter((s) => !job.expected.includes(s)).sort();
  const services = [...job.expected, ...reported].map((service) => {
    const at = job.done[service];
    return { service, status: at ? ('completed' as const) : ('pending' as const), completedAt: at ? at.toISOString() : null };
  });
  const complete = job.expected.every((s) => job.done[s]);
  const last = job.expected.map((s) => job.done[s]?.getTime() ?? 0).reduce((a, b) => Math.max(a, b), job.requestedAt.getTime());
  return {
    jobId: job.id,
    applicationId: job.applicationId,
    gamerId: job.gamerId,
    status: complete ? 'completed' : 'pending',
    requestedAt: job.requestedAt.toISOString(),
    completedAt: complete ? new Date(last).toISOString() : null,
    services,
  };
}
