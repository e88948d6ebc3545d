import { ErrorCode, type ApplicationTask, type ApplicationTaskInput, type ApplicationTaskPatch, type Season } from '@gfts/contracts';
import { badRequest, conflict, notFound, uuidv7 } from '@gfts/platform';
import { applicationTaskView, buildCatalogEntry, catalogListView, patchCatalogEntry } from './domain/catalog.ts';
import { seasonEnd } from './domain/expiry.ts';
import type { CatalogCache } from './catalog-cache.ts';
import type { TaskEvents } from './events.ts';
import type { CatalogRepository } from './repository/catalog-repository.ts';
import type { SettingsRepository } from './repository/settings-repository.ts';

/** The application task catalog: reads for gamers of the application, writes for its admins. */
export class CatalogService {
  private readonly repository: CatalogRepository;
  private readonly cache: CatalogCache;
  private readonly events: TaskEvents;
  private readonly settings: SettingsRepository;
  private readonly maxTasks: number;

  /** `maxTasks`: live top-level entries an application may hold (CATALOG_MAX_TASKS). */
  constructor(repository: CatalogRepository, cache: CatalogCache, events: TaskEvents, settings: SettingsRepository, maxTasks: number) {
    this.repository = repository;
    this.cache = cache;
    this.events = events;
    this.settings = settings;
    this.maxTasks = maxTasks;
  }

  async list(applicationId: string, achievements: boolean): Promise<ApplicationTask[]> {
    return catalogListView(await this.repository.listLive(applicationId), achievements);
  }

  async get(applicationId: string, taskId: string): Promise<ApplicationTask> {
    const entry = await this.repository.findByTaskId(applicationId, taskId);
    const view = entry && !entry.archived ? applicationTaskView(entry, taskId) : undefined;
    if (!view) throw notFound('no such task');
    return view;
  }

  async create(applicationId: string, input: ApplicationTaskInput): Promise<ApplicationTask> {
    const built = buildCatalogEntry(input, { applicationId, now: new Date(), newId: uuidv7 });
    if (!built.ok) throw badRequest(built.problems.join('; '));
    // Counted, then written: admins creating at the same moment may pass the cap together;
    // it guards against a runaway catalog, it is not a quota anyone is owed.
    if ((await this.repository.countLive(applicationId)) >= this.maxTasks) {
      throw conflict(ErrorCode.CATALOG_FULL, `the catalog holds ${this.maxTasks} live tasks, the most it may (CATALOG_MAX_TASKS); archive some to make room`);
    }
    await this.repository.insert(built.value);
    this.changed(applicationId);
    return applicationTaskView(built.value)!;
  }

  async update(applicationId: string, taskId: string, patch: ApplicationTaskPatch): Promise<ApplicationTask> {
    const entry = await this.repository.findByTaskId(applicationId, taskId);
    if (!entry || entry.archived) throw notFound('no such task');
    // updatedAt is the write's condition, so the edit's must differ from the one read
    const now = new Date(Math.max(Date.now(), entry.updatedAt.getTime() + 1));
    const patched = patchCatalogEntry(entry, taskId, patch, { now, newId: uuidv7 });
    if (!patched.ok) throw badRequest(patched.problems.join('; '));
    const written = await this.repository.replaceIfUnchanged(patched.value, entry.updatedAt);
    if (written === 'notFound') throw notFound('no such task');
    if (written === 'changed') throw conflict(ErrorCode.CONFLICT, 'the task was changed by someone else meanwhile; read it again and retry');
    this.changed(applicationId);
    return applicationTaskView(patched.value, taskId)!;
  }

  /** Archives a top-level task with its children; a child alone cannot go (its parent would be left with one). */
  async archive(applicationId: string, taskId: string): Promise<void> {
    const entry = await this.repository.findByTaskId(applicationId, taskId);
    if (!entry || entry.archived) throw notFound('no such task');
    if (entry.id !== taskId) throw conflict(ErrorCode.CONFLICT, `task ${taskId} is a child of ${entry.id}: archive the parent`);
    if ((await this.repository.archive(applicationId, entry.id, new Date())) === 'notFound') throw notFound('no such task');
    this.changed(applicationId);
  }

  async season(applicationId: string): Promise<Season> {
    const [adminEnd, schedule] = await Promise.all([this.repository.seasonEnd(applicationId), this.settings.schedule(applicationId)]);
    const { endsAt, source } = seasonEnd(new Date(), adminEnd, schedule);
    return { applicationId, endsAt: endsAt.toISOString(), source };
  }

  async setSeason(applicationId: string, endsAtText: string): Promise<Season> {
    const endsAt = new Date(endsAtText);
    if (Number.isNaN(endsAt.getTime())) throw badRequest('endsAt is not a date-time');
    if (endsAt.getTime() <= Date.now()) throw badRequest('endsAt must lie in the future');
    await this.repository.setSeasonEnd(applicationId, endsAt, new Date());
    return { applicationId, endsAt: endsAt.toISOString(), source: 'admin' };
  }

  private changed(applicationId: string): void {
    this.cache.invalidate(applicationId);
    this.events.catalogChanged(applicationId);
  }
}
