import { UTC_SCHEDULE, type ResetSchedule } from '../domain/reset-schedule.ts';
import type { Store } from './store.ts';

/** An application's reset schedule, on its document in `applications` (beside the season end). */
export class SettingsRepository {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  /** The schedule an admin set, or UTC midnight and Monday while none was. */
  async schedule(applicationId: string): Promise<ResetSchedule> {
    const doc = await this.store.applications.findOne({ _id: applicationId }, { projection: { timeZone: 1, dailyResetHour: 1, weeklyResetDay: 1 } });
    if (!doc?.timeZone || doc.dailyResetHour === undefined || !doc.weeklyResetDay) return UTC_SCHEDULE;
    return { timeZone: doc.timeZone, dailyResetHour: doc.dailyResetHour, weeklyResetDay: doc.weeklyResetDay };
  }

  /** Replaces the schedule whole (one document write: the three fields never mix two PUTs). */
  async setSchedule(applicationId: string, schedule: ResetSchedule, now: Date): Promise<void> {
    const { timeZone, dailyResetHour, weeklyResetDay } = schedule;
    await this.store.applications.updateOne({ _id: applicationId }, { $set: { timeZone, dailyResetHour, weeklyResetDay, updatedAt: now } }, { upsert: true });
  }
}
