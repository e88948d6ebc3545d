/**
 * The tasks-pipeline mix (bench --tasks-only): a small realistic catalog, the games one
 * gamer plays (a few stats each), and a model of what those games do to the gamer's tasks.
 * Pure: no I/O, so the unit tests pin it and two runs with the same seed play the same games.
 *
 * The model follows the rules of the spec (design.md "Within numberOfGames", composites,
 * lifetime achievements), written here rather than imported, so that the bench does not
 * depend on the tasks service's internals. It counts the gamer-task updates each event
 * causes (what a consumer has to write) and the completions it should cause.
 */

/** What POST /api/v1/{applicationId}/tasks takes. */
export interface TaskInput {
  name: string;
  description: string;
  targetValue: number;
  numberOfGames: number;
  family: 'daily' | 'weekly' | 'lifetime';
  applicationStatsId: string;
  isAchievement?: boolean;
  rewards: { inventoryItemId: string; quantity: number }[];
  children?: { name: string; description: string; targetValue: number; numberOfGames: number; applicationStatsId: string; rewards: [] }[];
}

/** Stats a game reports. Means per game: kills 4, wins 0.45, coins 100, headshots ~1, assists 2.5. */
export const MIX_STATS = ['games_played', 'kills', 'wins', 'coins', 'headshots', 'assists'] as const;

/**
 * 9 daily tasks (a gamer gets 3), 2 weekly composites of 3 children (a gamer gets 1) and 2
 * lifetime achievements (every gamer tracks both). Daily targets are reached in 2–10 games,
 * weekly children in 6–15, so tasks complete all through a run of ~20 games per gamer; the
 * achievements do not complete, and every game moves them.
 */
export function mixCatalog(item: (i: number) => string): TaskInput[] {
  const reward = (i: number, quantity = 1) => [{ inventoryItemId: item(i), quantity }];
  const daily = (i: number, name: string, stat: string, targetValue: number, numberOfGames = 0): TaskInput => ({
    name,
    description: name,
    targetValue,
    numberOfGames,
    family: 'daily',
    applicationStatsId: stat,
    rewards: reward(i),
  });
  const child = (name: string, stat: string, targetValue: number) => ({ name, description: name, targetValue, numberOfGames: 0, applicationStatsId: stat, rewards: [] as [] });
  return [
    daily(0, 'Play 2 games', 'games_played', 2),
    daily(1, 'Play 5 games', 'games_played', 5),
    daily(2, 'Win 2 games', 'wins', 2),
    daily(3, 'Win 3 games within 8', 'wins', 3, 8),
    daily(4, 'Score 20 kills', 'kills', 20),
    daily(5, 'Score 40 kills', 'kills', 40),
    daily(6, 'Collect 500 coins', 'coins', 500),
    daily(7, 'Land 6 headshots', 'headshots', 6),
    daily(8, 'Make 15 assists', 'assists', 15),
    {
      name: 'Weekly warrior',
      description: 'Play, fight and win',
      targetValue: 1,
      numberOfGames: 0,
      family: 'weekly',
      applicationStatsId: 'games_played',
      rewards: reward(9, 10),
      children: [child('Play 10 games', 'games_played', 10), child('Score 60 kills', 'kills', 60), child('Win 6 games', 'wins', 6)],
    },
    {
      name: 'Weekly collector',
      description: 'Coins, assists and headshots',
      targetValue: 1,
      numberOfGames: 0,
      family: 'weekly',
      applicationStatsId: 'coins',
      rewards: reward(10, 10),
      children: [child('Collect 1200 coins', 'coins', 1200), child('Make 30 assists', 'assists', 30), child('Land 12 headshots', 'headshots', 12)],
    },
    { name: 'Veteran', description: 'Play 1000 games', targetValue: 1000, numberOfGames: 0, family: 'lifetime', isAchievement: true, applicationStatsId: 'games_played', rewards: reward(11) },
    { name: 'Sharpshooter', description: 'Score 5000 kills', targetValue: 5000, numberOfGames: 0, family: 'lifetime', isAchievement: true, applicationStatsId: 'kills', rewards: reward(12) },
  ];
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Stat {
  applicationStatsId: string;
  value: number;
}

/** One game's stats: games_played always, the others when non-zero (what a game server reports). */
export function gameStats(random: () => number): Stat[] {
  const kills = Math.floor(random() * 9); // 0..8
  const wins = random() < 0.45 ? 1 : 0;
  const coins = 20 + Math.floor(random() * 161); // 20..180
  const headshots = Math.floor(kills * random() * 0.5);
  const assists = Math.floor(random() * 6); // 0..5
  const stats: Stat[] = [{ applicationStatsId: 'games_played', value: 1 }];
  for (const [id, value] of [['kills', kills], ['wins', wins], ['coins', coins], ['headshots', headshots], ['assists', assists]] as const) {
    if (value > 0) stats.push({ applicationStatsId: id, value });
  }
  return stats;
}

/** A task as the catalog API lists it (the fields the model needs). */
export interface CatalogTaskView {
  id: string;
  applicationStatsId: string;
  targetValue: number;
  numberOfGames: number;
  isAchievement: boolean;
  children: { id: string; applicationStatsId: string; targetValue: number; numberOfGames: number }[];
}

interface ModelTask {
  taskId: string;
  /** null for a composite parent, which moves with its children */
  stat: string | null;
  target: number;
  numberOfGames: number;
  progress: number;
  games: number;
  completed: boolean;
  parent: ModelTask | null;
  children: ModelTask[];
  isAchievement: boolean;
}

export interface EventEffect {
  /** gamer-task writes the event needs: each task it moves, plus a composite parent per completed child */
  updates: number;
  /** gamer tasks the event completes (children, parents, single tasks, achievements) */
  completions: number;
}

/**
 * The gamers' tasks and what games do to them, assuming every event is applied once, in
 * order. Built from the catalog and the assign answers (task ids), so it does not know or
 * care how the service stores a gamer task.
 */
export class MixModel {
  private readonly tasks = new Map<string, ModelTask[]>();
  private readonly catalog: Map<string, CatalogTaskView>;

  constructor(catalog: CatalogTaskView[]) {
    this.catalog = new Map(catalog.map((c) => [c.id, c]));
  }

  /** Gives a gamer the catalog entry `taskId` (a single task, a composite or an achievement). */
  assign(gamerId: string, taskId: string): void {
    const entry = this.catalog.get(taskId);
    if (!entry) throw new Error(`task ${taskId} is not in the catalog`);
    const list = this.tasks.get(gamerId) ?? [];
    const composite = entry.children.length > 0;
    const parent: ModelTask = { taskId, stat: composite ? null : entry.applicationStatsId, target: composite ? entry.children.length : entry.targetValue, numberOfGames: composite ? 0 : entry.numberOfGames, progress: 0, games: 0, completed: false, parent: null, children: [], isAchievement: entry.isAchievement };
    list.push(parent);
    for (const c of entry.children) {
      const child: ModelTask = { taskId: c.id, stat: c.applicationStatsId, target: c.targetValue, numberOfGames: c.numberOfGames, progress: 0, games: 0, completed: false, parent, children: [], isAchievement: entry.isAchievement };
      parent.children.push(child);
      list.push(child);
    }
    this.tasks.set(gamerId, list);
  }

  /** Catalog task ids the gamer holds (top-level entries). */
  held(gamerId: string): string[] {
    return (this.tasks.get(gamerId) ?? []).filter((t) => t.parent === null).map((t) => t.taskId);
  }

  /** A stat (not games_played) and value that would complete one of the gamer's open single tasks in one game, if any. */
  finisher(gamerId: string): Stat | undefined {
    const t = (this.tasks.get(gamerId) ?? []).find((x) => x.stat !== null && x.stat !== 'games_played' && !x.completed && !x.isAchievement && x.parent === null);
    return t ? { applicationStatsId: t.stat!, value: t.target - t.progress } : undefined;
  }

  /** Applies one game of the gamer. */
  apply(gamerId: string, stats: readonly Stat[]): EventEffect {
    const totals = new Map<string, number>();
    for (const s of stats) totals.set(s.applicationStatsId, (totals.get(s.applicationStatsId) ?? 0) + s.value);
    let updates = 0;
    let completions = 0;
    for (const t of this.tasks.get(gamerId) ?? []) {
      if (t.completed || t.stat === null) continue;
      const value = totals.get(t.stat);
      if (value === undefined) continue;
      updates++;
      t.progress += value;
      t.games++;
      if (t.progress >= t.target) {
        t.completed = true;
        completions++;
        const p = t.parent;
        if (p && !p.completed) {
          updates++;
          p.progress = p.children.filter((c) => c.completed).length;
          if (p.progress >= p.children.length) {
            p.completed = true;
            completions++;
          }
        }
      } else if (t.numberOfGames > 0 && t.games >= t.numberOfGames) {
        t.progress = 0;
        t.games = 0;
      }
    }
    return { updates, completions };
  }

  /** Open (not completed) gamer tasks, all gamers. */
  openTasks(): number {
    let n = 0;
    for (const list of this.tasks.values()) for (const t of list) if (!t.completed) n++;
    return n;
  }
}
