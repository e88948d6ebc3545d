import type { Connection } from 'mongoose';
import type { ProfileCache } from '../profile-cache.ts';
import { blockRepository, type BlockRepository } from './blocks.ts';
import { friendListRepository, type FriendListRepository, type FriendListSettings } from './friend-lists.ts';
import { gamerErasure, type GamerErasure } from './gamer-erasure.ts';
import { gamerDirectory, type GamerDirectory } from './gamers.ts';
import { createModels } from './models.ts';
import { relationRepository, type ListedRelation, type RelationList, type RelationRepository } from './relations.ts';

export type { BlockRepository, FriendListRepository, FriendListSettings, GamerDirectory, ListedRelation, RelationList, RelationRepository };

export interface FriendshipRepositories {
  gamers: GamerDirectory;
  relations: RelationRepository;
  blocks: BlockRepository;
  friendLists: FriendListRepository;
  erasure: GamerErasure;
}

/** Data access of the service: the only code that talks to MongoDB. `profiles` caches the directory's profile reads. */
export async function createRepositories(connection: Connection, friendListSettings: FriendListSettings, profiles: ProfileCache): Promise<FriendshipRepositories> {
  const models = await createModels(connection);
  const friendLists = friendListRepository(models.friendLists, models.relations, friendListSettings);
  const gamers = gamerDirectory(models.gamers, profiles);
  return {
    gamers,
    relations: relationRepository(models.relations, models.blocks, friendLists, gamers),
    blocks: blockRepository(models.blocks, models.relations, friendLists, gamers),
    friendLists,
    erasure: gamerErasure(models, friendLists, profiles),
  };
}
