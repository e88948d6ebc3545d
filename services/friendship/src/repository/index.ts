import type { Connection } from 'mongoose';
import { blockRepository, type BlockRepository } from './blocks.ts';
import { gamerDirectory, type GamerDirectory } from './gamers.ts';
import { createModels } from './models.ts';
import { relationRepository, type RelationList, type RelationRepository } from './relations.ts';

export type { BlockRepository, GamerDirectory, RelationList, RelationRepository };

export interface FriendshipRepositories {
  gamers: GamerDirectory;
  relations: RelationRepository;
  blocks: BlockRepository;
}

/** Data access of the service: the only code that talks to MongoDB. */
export async function createRepositories(connection: Connection): Promise<FriendshipRepositories> {
  const models = await createModels(connection);
  return {
    gamers: gamerDirectory(models.gamers),
    relations: relationRepository(models.relations, models.blocks),
    blocks: blockRepository(models.blocks, models.relations),
  };
}
