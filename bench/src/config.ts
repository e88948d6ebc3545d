import { seededUuid } from './datagen/ids.ts';
import type { FriendDatasetSpec } from './datagen/friendship-data.ts';

export type Mode = 'quick' | 'full';

export interface BenchConfig {
  mode: Mode;
  /** the small growth point, the main dataset, the large growth point */
  small: FriendDatasetSpec;
  main: FriendDatasetSpec;
  large: FriendDatasetSpec;
  /** autocannon duration of a fast scenario */
  durationS: number;
  /** time budget of a sampled (slow) scenario */
  slowBudgetS: number;
  minSamples: number;
  slowMs: number;
  connections: number;
  tasks: { app: string; gamers: number; eventsHttp: number; eventsNats: number; rate: number; claims: number; claimConcurrency: number };
  pairs: { budgetS: number; concurrency: number };
  profileS: number;
}

export function benchConfig(mode: Mode): BenchConfig {
  const app = (name: string) => seededUuid(`bench-app-${mode}`, name.length * 1000 + name.charCodeAt(0));
  const full = mode === 'full';
  return {
    mode,
    small: { app: app('small'), seed: `${mode}-small`, gamers: full ? 10_000 : 1_000, relations: full ? 100_000 : 10_000, probes: [{ degree: 10, count: 5 }, { degree: 100, count: 5 }] },
    main: {
      app: app('main'),
      seed: `${mode}-main`,
      gamers: full ? 100_000 : 10_000,
      relations: full ? 1_000_000 : 100_000,
      probes: [{ degree: 10, count: 10 }, { degree: 100, count: 20 }, { degree: 1000, count: 5 }],
    },
    large: { app: app('large'), seed: `${mode}-large`, gamers: full ? 1_000_000 : 100_000, relations: 500, probes: [{ degree: 100, count: 5 }] },
    durationS: full ? 20 : 8,
    slowBudgetS: full ? 60 : 20,
    minSamples: full ? 1 : 2,
    slowMs: 1000,
    connections: 8,
    tasks: { app: app('tasks'), gamers: full ? 10_000 : 1_000, eventsHttp: full ? 2_000 : 300, eventsNats: full ? 2_000 : 300, rate: 1000, claims: full ? 200 : 50, claimConcurrency: 10 },
    pairs: { budgetS: full ? 90 : 30, concurrency: 2 },
    profileS: Number(process.env.BENCH_PROFILE_S ?? (full ? 20 : 8)),
  };
}
