/**
 * Loads the friend-suggestion scenario's data straight into a friendship database: the full
 * bench's main dataset (100k gamers, ~1M relations, `planFriendDataset`, written with the
 * service's own models like `main.ts` does) and, in the same application, the
 * neighbourhood of `datagen/suggestions-neighbourhood.ts` as accepted friendships. Then
 * `suggestions.ts --measure-only` finds everything in place.
 *
 * Why not through the API: on this machine building the neighbourhood over HTTP ran at
 * about one pair per second on the old store, and the 1M relations take hours that way
 * (bench/README.md, "Data"). What the scenario measures (reads) does not depend on how the
 * documents were written: they are the documents the service writes, under its indexes.
 *
 *   node bench/src/suggestions-data.ts --mongo mongodb://127.0.0.1:PORT/friendship [--app UUID]
 */
import { uuidv7 } from '../../libs/platform/src/ids.ts';
import { displayNameKey } from '../../services/friendship/src/domain/display-name.ts';
import { membersOf, pairKeyOf } from '../../services/friendship/src/domain/relation-rules.ts';
import { benchConfig } from './config.ts';
import { FriendshipWriter, ignoreDuplicates, planFriendDataset } from './datagen/friendship-data.ts';
import { center, friends, neighbourhoodPairs, pool } from './datagen/suggestions-neighbourhood.ts';

if (process.argv.includes('--help') || process.argv.includes('-h') || !process.argv.includes('--mongo')) {
  console.log('usage: node bench/src/suggestions-data.ts --mongo MONGO_URL_OF_THE_FRIENDSHIP_DB [--app UUID]\n(see the header of this file and bench/README.md)');
  process.exit(process.argv.includes('--mongo') ? 0 : 2);
}
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

const spec = { ...benchConfig('full').main, ...(arg('--app') ? { app: arg('--app')! } : {}) };
const writer = await FriendshipWriter.open(arg('--mongo')!);
try {
  const plan = planFriendDataset(spec);
  let lastPct = -1;
  const stats = await writer.write(plan, (fraction, note) => {
    const pct = Math.floor(fraction * 100);
    if (pct !== lastPct && pct % 5 === 0) log(note);
    lastPct = pct;
  });
  for (const s of stats) log(`${s.collection}: ${s.docs} documents, ${Math.round(s.docsPerSecond)}/s`);

  const now = Date.now();
  const { gamers, relations } = writer.models;
  await gamers
    .insertMany([center, ...friends, ...pool].map((g) => ({ applicationId: spec.app, gamerId: g.id, displayName: g.name, displayNameKey: displayNameKey(g.name), avatar: g.avatar, updatedAt: new Date(now) })), { ordered: false })
    .catch(ignoreDuplicates);
  const pairs = neighbourhoodPairs();
  for (let i = 0; i < pairs.length; i += 1000) {
    const docs = pairs.slice(i, i + 1000).map(([a, b], k) => ({
      _id: uuidv7(now + i + k),
      applicationId: spec.app,
      pairKey: pairKeyOf(a.id, b.id),
      members: membersOf(a.id, b.id),
      requester: a.id,
      addressee: b.id,
      status: 'accepted' as const,
      createdAt: new Date(now),
      updatedAt: new Date(now),
    }));
    await relations.insertMany(docs, { ordered: false }).catch(ignoreDuplicates);
  }
  log(`neighbourhood: ${pairs.length} friendships`);
  log(`collections: ${JSON.stringify(await writer.countAll())}`);
} finally {
  await writer.close();
}
