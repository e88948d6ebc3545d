import type { ApplicationSettings } from '@gfts/contracts';
import { badRequest } from '@gfts/platform';
import { canonicalTimeZone } from './domain/reset-schedule.ts';
import type { SettingsRepository } from './repository/settings-repository.ts';

/** GET/PUT /{applicationId}/settings: the application's reset time zone, hour and weekday. */
export class SettingsService {
  private readonly repository: SettingsRepository;

  constructor(repository: SettingsRepository) {
    this.repository = repository;
  }

  async get(applicationId: string): Promise<ApplicationSettings> {
    return this.repository.schedule(applicationId);
  }

  async put(applicationId: string, settings: ApplicationSettings): Promise<ApplicationSettings> {
    const timeZone = canonicalTimeZone(settings.timeZone);
    if (!timeZone) throw badRequest(`timeZone ${JSON.stringify(settings.timeZone)} is not an IANA time zone the service knows (for example Europe/Berlin)`);
    const schedule = { ...settings, timeZone };
    await this.repository.setSchedule(applicationId, schedule, new Date());
    return schedule;
  }
}
