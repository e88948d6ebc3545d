import { createHash } from 'node:crypto';

/**
 * Deterministic data: the same seed and index give the same gamer in every run, so two
 * runs of the bench measure the same dataset.
 */
export function seededUuid(seed: string, index: number): string {
  const h = createHash('sha1').update(`${seed}:${index}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x40;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const FIRST = [
  'Shadow', 'Nova', 'Kai', 'Luna', 'Raven', 'Blaze', 'Storm', 'Frost', 'Viper', 'Echo', 'Ghost', 'Pixel', 'Orion', 'Zara', 'Milo',
  'Ash', 'Iris', 'Jade', 'Rex', 'Sage', 'Talon', 'Vex', 'Wren', 'Yuki', 'Axel', 'Bolt', 'Cinder', 'Dax', 'Ember', 'Fang',
  'Gale', 'Hex', 'Ivy', 'Jinx', 'Knox', 'Lyra', 'Mako', 'Nyx', 'Onyx', 'Pike', 'Quill', 'Rook', 'Sable', 'Thorn', 'Ursa',
  'Björn', 'Zoë', 'Ånja', 'Søren', 'Mía',
];
const SECOND = [
  'Wolf', 'Hunter', 'Rider', 'Blade', 'Knight', 'Fox', 'Hawk', 'Strike', 'Storm', 'Runner', 'Mage', 'Queen', 'King', 'Star',
  'Heart', 'Slayer', 'Walker', 'Spark', 'Byte', 'Core', 'Drake', 'Flame', 'Gear', 'Jet', 'Lord', 'Moon', 'Nine', 'Pulse',
  'Rogue', 'Shade', 'Tide', 'Vale', 'Wing', 'Zero',
];

/** A gamer tag such as "NovaWolf42": realistic spread of prefixes for the search scenario. */
export function gamerName(seed: string, index: number): string {
  const h = createHash('sha1').update(`name:${seed}:${index}`).digest();
  const first = FIRST[h.readUInt16BE(0) % FIRST.length]!;
  const second = SECOND[h.readUInt16BE(2) % SECOND.length]!;
  const number = h.readUInt16BE(4) % 1000;
  return `${first}${second}${number}`;
}

/** Search prefixes a player would type: 2–4 letters of common tags, in mixed case. */
export const SEARCH_PREFIXES = ['sh', 'Nov', 'kai', 'LU', 'rav', 'bl', 'sto', 'fro', 'vip', 'ech', 'gho', 'pix'];
