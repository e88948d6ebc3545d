import type { Reward, RewardItem, TaskDetail, TaskFamily } from '@gfts/contracts';

/** A configured task or achievement, or a child of a composite. */
export interface CatalogTask {
  id: string;
  name: string;
  description: string;
  targetValue: number;
  numberOfGames: number;
  family: TaskFamily;
  applicationStatsId: string;
  isAchievement: boolean;
  rewards: Reward[];
}

/**
 * A top-level catalog entry: a single task, or a composite parent with its children
 * embedded, so creating, changing or archiving a composite is one atomic document write.
 */
export interface CatalogEntry extends CatalogTask {
  applicationId: string;
  children: CatalogTask[];
  archived: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A catalog task seen on its own, with its place in the tree. */
export interface FlatTask extends CatalogTask {
  applicationId: string;
  parentTaskId: string | null;
  entry: CatalogEntry;
}

export type ClaimState = 'none' | 'claiming' | 'claimed';

/**
 * What the stat rules read and move of a gamer task: its definition (what it is tied to,
 * never changed after assignment) and its window state, which the gamer's progress document
 * holds (docs/tasks.md "Progress documents").
 */
export type TaskProgress = Pick<
  GamerTaskRecord,
  | 'id' | 'applicationId' | 'gamerId' | 'taskId' | 'parentGamerTaskId' | 'children' | 'isAchievement' | 'statKey' | 'targetValue'
  | 'numberOfGames' | 'progress' | 'games' | 'completed' | 'completedAt' | 'completedByEventId' | 'appliedEventIds' | 'expiredAt'
>;

/** What the stat rules read of a gamer task besides its state: fixed when it is assigned. */
export type TaskDefinition = Omit<TaskProgress, 'progress' | 'games' | 'completed' | 'completedAt' | 'completedByEventId' | 'appliedEventIds'>;

/**
 * A task held by a gamer: a copy of the configured task as it was at assignment (later
 * catalog edits reach later assignments only), its window state, and its claim state.
 */
export interface GamerTaskRecord {
  id: string;
  applicationId: string;
  gamerId: string;
  taskId: string;
  parentGamerTaskId: string | null;
  /** a composite parent's children: which gamer task holds which child task */
  children: { taskId: string; gamerTaskId: string }[];
  isAchievement: boolean;
  family: TaskFamily;
  /** the stat that moves this task; null for a composite parent, which moves with its children */
  statKey: string | null;
  targetValue: number;
  numberOfGames: number;
  task: TaskDetail;
  progress: number;
  games: number;
  completed: boolean;
  completedAt: Date | null;
  completedByEventId: string | null;
  claimState: ClaimState;
  claimStartedAt: Date | null;
  claimedAt: Date | null;
  /**
   * the stat events applied and not yet recorded as processed: a redelivered event is
   * recognised here (the gamer's, from the progress document; empty on a stored gamer task)
   */
  appliedEventIds: string[];
  createdAt: Date;
  expiredAt: Date | null;
  /**
   * On the parent of a tree a keyed assign wrote: that assign's key (its store id) and body
   * fingerprint, `<key id>:<fingerprint>`, so a retry of it after a failure takes the tree as
   * its own instead of assigning more (and another body under the same key does not)
   */
  assignKey?: string;
}

export type { RewardItem };
