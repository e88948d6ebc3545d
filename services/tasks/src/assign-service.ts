import { ErrorCode, TaskFamily, TaskLimits, type GamerTask, type Identity } from '@gfts/contracts';
import { badRequest, conflict, uuidv7 } from '@gfts/platform';
import { expiryFor } from './domain/expiry.ts';
import { gamerTaskTree, gamerTaskView } from './domain/gamer-task.ts';
import { assignFingerprint, decideOnKey } from './domain/idempotency.ts';
import { assignmentOrder, numberOfTasksProblem } from './domain/pick.ts';
import type { CatalogRepository } from './repository/catalog-repository.ts';
import type { IdempotencyRepository } from './repository/event-log-repository.ts';
import type { GamerProgressRepository } from './repository/gamer-progress-repository.ts';
import type { GamerTaskRepository } from './repository/gamer-task-repository.ts';
import type { SettingsRepository } from './repository/settings-repository.ts';
import type { GamerTaskRecord } from './domain/model.ts';

/** Most task trees one round of an assign writes at once (the largest numberOfTasks). */
export const ASSIGN_ROUND_MAX = TaskLimits.TASKS_PER_ASSIGN_MAX;

/** A pending key older than this belongs to a request that died; a retry takes it over. */
const ABANDONED_AFTER_MS = 30_000;

export interface AssignRequest {
  family: TaskFamily;
  numberOfTasks: number;
}

/** POST /tasks/assign: random tasks of a family the gamer does not hold active. */
export class AssignService {
  private readonly catalog: CatalogRepository;
  private readonly gamerTasks: GamerTaskRepository;
  private readonly progress: GamerProgressRepository;
  private readonly keys: IdempotencyRepository;
  private readonly maxTasks: number;
  private readonly settings: SettingsRepository;
  /** how long a key is remembered (IDEMPOTENCY_KEY_RETENTION_MS): trees older than that are no retry's */
  private readonly keyRetentionMs: number;

  constructor(catalog: CatalogRepository, gamerTasks: GamerTaskRepository, progress: GamerProgressRepository, keys: IdempotencyRepository, maxTasks: number, settings: SettingsRepository, keyRetentionMs: number) {
    this.catalog = catalog;
    this.gamerTasks = gamerTasks;
    this.progress = progress;
    this.keys = keys;
    this.maxTasks = maxTasks;
    this.settings = settings;
    this.keyRetentionMs = keyRetentionMs;
  }

  async assign(identity: Identity, request: AssignRequest, idempotencyKey?: string): Promise<GamerTask[]> {
    const problem = numberOfTasksProblem(request.family, request.numberOfTasks, this.maxTasks);
    if (problem) throw badRequest(problem);
    if (idempotencyKey === undefined) return this.pick(identity, request);
    const key = `${identity.applicationId}:${identity.gamerId}:${idempotencyKey}`;
    const fingerprint = assignFingerprint(request);
    // The trees are marked with the key and the body: a retry after a failure (which freed the
    // key) takes the trees of its own request only. Until 2026-11-28 the mark was the key
    // alone, and the same key with another body took them all: {daily, 2} after a failed
    // {daily, 5} answered 5 tasks.
    return this.once(key, fingerprint, () => this.pick(identity, request, { mark: `${key}:${fingerprint}`, legacy: key }));
  }

  /**
   * Runs `work` once per key: the first request stores its answer, a retry with the same
   * body gets that answer again, another body under the same key is refused, and a retry
   * while the first still runs is told so at once (409; nothing waits on it). A request
   * that fails frees the key so that a retry runs again; what it wrote before failing is
   * marked with the key, and the retry takes it as its own (pick). Completing and freeing are the
   * holder's only (its `startedAt`): a request that outlived a take-over changes nothing.
   */
  private async once(id: string, fingerprint: string, work: () => Promise<GamerTask[]>): Promise<GamerTask[]> {
    const startedAt = new Date();
    const inProgress = () =>
      conflict(ErrorCode.CONFLICT, 'a request with this Idempotency-Key is still in progress; retry it in a moment for its answer', { retryAfterSeconds: 1 });
    const begun = await this.keys.begin(id, fingerprint, startedAt);
    if (begun.kind === 'contended') throw inProgress();
    if (begun.kind === 'seen') {
      const taken = begun.stored;
      const decision = decideOnKey(taken, fingerprint, startedAt, ABANDONED_AFTER_MS);
      if (decision === 'reused') throw conflict(ErrorCode.IDEMPOTENCY_KEY_REUSED, 'this Idempotency-Key was used with another request body');
      if (decision === 'replay') return taken.response as GamerTask[];
      if (decision === 'in-progress') throw inProgress();
      if (!(await this.keys.takeOver(id, taken.startedAt, startedAt))) {
        // the abandoned request finished after all (or another retry took the key over)
        const now = await this.keys.find(id);
        if (now?.state === 'done' && now.fingerprint === fingerprint) return now.response as GamerTask[];
        throw inProgress();
      }
    }
    try {
      const answer = await work();
      await this.keys.complete(id, startedAt, answer);
      return answer;
    } catch (error) {
      await this.keys.release(id, startedAt).catch(() => undefined);
      throw error;
    }
  }

  /**
   * `keyed`: the mark of this keyed assign's trees (its key and body), and the mark of before
   * 2026-11-28 (the key alone), which a retry across that rollout still takes as its own.
   */
  private async pick(identity: Identity, request: AssignRequest, keyed?: { mark: string; legacy: string }, again = false): Promise<GamerTask[]> {
    const assignKey = keyed?.mark;
    const { family, numberOfTasks } = request;
    const { applicationId, gamerId } = identity;
    const now = new Date();
    const candidates = (await this.catalog.listLive(applicationId)).filter((e) => !e.archived && !e.isAchievement && e.family === family);
    if (candidates.length === 0) throw conflict(ErrorCode.NOT_ENOUGH_TASKS, `the application has no ${family} tasks`);
    const [seasonEnd, schedule] = await Promise.all([
      family === TaskFamily.SEASONAL ? this.catalog.seasonEnd(applicationId) : null,
      this.settings.schedule(applicationId),
    ]);
    const expiredAt = expiryFor(family, now, seasonEnd, schedule);
    const active = await this.gamerTasks.activeOf([{ applicationId, gamerId }], now);
    // the trees an earlier attempt with this key wrote before it failed are this request's;
    // those written before the key's retention are an older request's, whose key was forgotten
    const adopted = keyed === undefined ? [] : adoptedTrees(active, [keyed.mark, keyed.legacy], family, new Date(now.getTime() - this.keyRetentionMs));
    // their missing progress entries added, and their progress as it stands (games may have come since)
    const adoptedParents = adopted.length === 0 ? [] : (await this.progress.overlay(identity, adopted.flatMap((tree) => [tree.parent, ...tree.children]), now)).filter((r) => r.parentGamerTaskId === null);
    // held in this family: a copy assigned while the task was of another family (an admin
    // moved it since, lifetime to daily) would otherwise keep it from the gamer for as long as
    // that copy lives, for ever for a lifetime one (until 2026-11-28)
    const order = assignmentOrder(candidates, new Set(active.filter((t) => t.family === family).map((t) => t.taskId)));
    const wanted = adopted.length + (family === TaskFamily.SEASONAL ? order.length : Math.min(Math.max(0, numberOfTasks - adopted.length), order.length));
    const created: GamerTask[] = adoptedParents.map(gamerTaskView);
    let next = 0;
    // in rounds: a task a concurrent assign took first is skipped and the next one tried
    while (created.length < wanted && next < order.length) {
      // at most ASSIGN_ROUND_MAX trees written at once: a seasonal assign takes every
      // seasonal task, up to CATALOG_MAX_TASKS composites of 20 children, which all went in
      // one round (one insert each at once, one bulk write of them all) until 2026-11-29
      const round = order.slice(next, next + Math.min(wanted - created.length, ASSIGN_ROUND_MAX));
      next += round.length;
      const trees = round.map((entry) => gamerTaskTree(entry, { applicationId, gamerId, now, expiredAt, idFor: () => uuidv7(), ...(assignKey !== undefined ? { assignKey } : {}) }));
      const inserted = await Promise.all(trees.map((tree) => this.gamerTasks.insertTree(tree.parent, tree.children)));
      const written = trees.filter((_, i) => inserted[i]);
      // the progress entries follow the gamer tasks (a crash in between: the next list read adds them)
      await this.progress.add(identity, written.flatMap((tree) => [tree.parent, ...tree.children]), now);
      for (const tree of written) created.push(gamerTaskView(tree.parent));
    }
    // The period turned over while its tasks were written (an assign in the last moments before
    // a reset): they are expired already, gone from every read. The assign runs again, once,
    // in the new period (periods last a day at least, so a second turn-over cannot follow).
    if (!again && expiredAt !== null && expiredAt.getTime() <= Date.now()) return this.pick(identity, request, keyed, true);
    if (created.length === 0) throw conflict(ErrorCode.NOT_ENOUGH_TASKS, `the gamer already holds every ${family} task`);
    return created;
  }
}

/** The active trees a keyed assign of `family` wrote under one of `marks` since `since`: its parents and their children. */
function adoptedTrees(active: GamerTaskRecord[], marks: string[], family: TaskFamily, since: Date): { parent: GamerTaskRecord; children: GamerTaskRecord[] }[] {
  return active
    .filter((t) => t.assignKey !== undefined && marks.includes(t.assignKey) && t.parentGamerTaskId === null && t.family === family && t.createdAt >= since)
    .map((parent) => ({ parent, children: active.filter((t) => t.parentGamerTaskId === parent.id) }));
}
