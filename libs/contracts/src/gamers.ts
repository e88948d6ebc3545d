import Type, { type Static } from 'typebox';
import { DateTime, Uuid } from './common.ts';
import { Problem } from './errors.ts';
import { ApplicationGamerParams } from './tasks.ts';

/*
 * Erasing a gamer everywhere (docs/gamer-erasure.md). The tasks service takes the request,
 * keeps the job and publishes `gamer.erased` on the GAMERS stream (JetStream, durable);
 * every service that holds data about gamers consumes it with its own durable consumer,
 * erases idempotently, and publishes `gamer.erasure.completed` naming itself.
 */

/** A service name as it reports erasure progress: lower case, the key of the job's `services`. */
export const ServiceName = Type.String({ pattern: '^[a-z][a-z0-9-]{0,31}$', description: 'the reporting service, e.g. tasks, friendship, notifications' });

/**
 * `<prefix>.gamer.erased`: erase everything about this gamer of this application. The
 * JetStream message id is the jobId, so a re-publication within the duplicate window is
 * stored once; a handler must still be idempotent (redeliveries, a second job for the same
 * gamer). After handling it, the service publishes GamerErasureCompletedEvent.
 */
export const GamerErasedEvent = Type.Object(
  {
    jobId: Uuid,
    applicationId: Uuid,
    gamerId: Uuid,
    requestedAt: DateTime,
    /**
     * the services still to erase: a job's event published again for the services that have
     * not reported names them, and the others leave the gamer as she is now (she may have come
     * back since). Absent: every service erases.
     */
    services: Type.Optional(Type.Array(ServiceName)),
  },
  // a field a newer producer adds is ignored, not a reason to drop an erasure: during a
  // rollout the older consumers terminated such events and never erased (until 2026-11-28)
  { additionalProperties: true },
);
export type GamerErasedEvent = Static<typeof GamerErasedEvent>;

/** `<prefix>.gamer.erasure.completed`: one service finished erasing the gamer of a job. */
export const GamerErasureCompletedEvent = Type.Object(
  {
    jobId: Uuid,
    applicationId: Uuid,
    gamerId: Uuid,
    service: ServiceName,
    completedAt: DateTime,
    /**
     * the report answers an event published again for the services that had not reported
     * (GamerErasedEvent.services): the gamer may have come back since, so the others do not
     * delete again on it (the notifications service's follow-up)
     */
    republished: Type.Optional(Type.Boolean()),
    /**
     * when the erasure was asked (the event's): a report long after it comes from a service
     * that lagged, when the gamer may have come back (the notifications service's follow-up
     * leaves her inbox then; absent from reporters before 2026-11-29)
     */
    requestedAt: Type.Optional(DateTime),
  },
  // as GamerErasedEvent: a newer reporter's field is ignored
  { additionalProperties: true },
);
export type GamerErasureCompletedEvent = Static<typeof GamerErasureCompletedEvent>;

export const ErasureServiceState = Type.Object(
  {
    service: ServiceName,
    status: Type.Enum(['pending', 'completed']),
    completedAt: Type.Union([DateTime, Type.Null()]),
  },
  { additionalProperties: false },
);

/** An erasure job as GET answers it: done when every service it waits for has reported. */
export const ErasureJob = Type.Object(
  {
    jobId: Uuid,
    applicationId: Uuid,
    gamerId: Uuid,
    status: Type.Enum(['pending', 'completed'], { description: 'completed once every service listed has erased the gamer' }),
    requestedAt: DateTime,
    completedAt: Type.Union([DateTime, Type.Null()]),
    services: Type.Array(ErasureServiceState, { description: 'the services the job waits for (ERASURE_SERVICES), then any other that reported' }),
  },
  { additionalProperties: false },
);
export type ErasureJob = Static<typeof ErasureJob>;

export const ErasureJobParams = Type.Object({ applicationId: Uuid, jobId: Uuid }, { additionalProperties: false });
export type ErasureJobParams = Static<typeof ErasureJobParams>;

const errors = { 400: Problem, 401: Problem, 403: Problem, 404: Problem, 429: Problem, 503: Problem };
const BASE = '/api/v1';

export const gamerAdminRoutes = {
  eraseGamer: {
    method: 'DELETE', url: `${BASE}/:applicationId/gamers/:gamerId`,
    links: { getGamerErasure: { applicationId: '$request.path.applicationId', jobId: '$response.body#/jobId' } },
    schema: {
      operationId: 'eraseGamer', summary: 'Erase a gamer from every service (role admin); 202 with the job to follow', tags: ['gamer admin'],
      description: 'Answers 202 for any gamer id of the application, known or not (erasing nothing is done at once), so the answer tells nobody whether the gamer existed. 503 when the event bus did not acknowledge the erasure: it may have started, its job is kept and published again until it is, and the detail names the job to follow.',
      params: ApplicationGamerParams, response: { 202: ErasureJob, ...errors },
    },
  },
  getErasure: {
    method: 'GET', url: `${BASE}/:applicationId/gamers/erasures/:jobId`,
    schema: { operationId: 'getGamerErasure', summary: 'Progress of an erasure job, per service (role admin)', tags: ['gamer admin'], params: ErasureJobParams, response: { 200: ErasureJob, ...errors } },
  },
} as const;
