import type { Gamer } from '../stack.ts';
import { seededUuid } from './ids.ts';

/*
 * The friend-suggestion scenario's neighbourhood (issue #15 item 2): a center gamer with
 * 100 friends who each have 100 friends, 99 of them drawn from a pool of 2,000 (~9,900
 * friend-of-friend edges). Seeded, so the HTTP build (suggestions.ts) and the direct load
 * (suggestions-data.ts) make the same gamers and pairs.
 */
export const FRIENDS = 100;
export const FRIENDS_OF_EACH = 100;
export const POOL = 2_000;

const gamerOf = (seed: string, i: number): Gamer => ({ id: seededUuid(seed, i), name: `Suggest${seed.slice(-4)}${i}`, avatar: '' });
export const center = gamerOf('suggest-center', 0);
export const friends = Array.from({ length: FRIENDS }, (_, i) => gamerOf('suggest-friend', i));
export const pool = Array.from({ length: POOL }, (_, i) => gamerOf('suggest-pool', i));

/** Every friendship of the neighbourhood as [requester, addressee]; 53 is prime to the pool size, so each friend's 99 are distinct. */
export function neighbourhoodPairs(): Array<[Gamer, Gamer]> {
  const pairs: Array<[Gamer, Gamer]> = [];
  friends.forEach((f, i) => {
    pairs.push([center, f]);
    for (let k = 0; k < FRIENDS_OF_EACH - 1; k++) pairs.push([f, pool[(i * 37 + k * 53) % POOL]!]);
  });
  return pairs;
}
