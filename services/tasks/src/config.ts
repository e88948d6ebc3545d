import { BaseConfig, loadConfig, StoreConfig } from '@gfts/platform';
import Type, { type Static, type TObject } from 'typebox';

const TasksSettings = {
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8082 }),
  ...BaseConfig,
  ...StoreConfig,
  MAX_TASKS_PER_ASSIGN: Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'largest numberOfTasks of one assign' }),
  STATS_MAX_DELIVER: Type.Integer({ minimum: 1, maximum: 100, default: 5, description: 'deliveries of a stat event before it goes to the dead-letter subject' }),
  STATS_STREAM_REPLICAS: Type.Integer({ minimum: 1, maximum: 5, default: 1, description: 'JetStream replicas of the stats stream' }),
  CONSUMER_BATCH: Type.Integer({ minimum: 1, maximum: 1000, default: 64, description: 'stat events pulled per batch' }),
  EXPIRY_SWEEP_INTERVAL_MS: Type.Integer({ minimum: 1000, default: 60_000, description: 'period of the expired-task sweep' }),
};
export type TasksConfig = Static<TObject<typeof TasksSettings>>;

export function readTasksConfig(env: Record<string, string | undefined> = process.env): TasksConfig {
  return loadConfig(TasksSettings, env);
}
