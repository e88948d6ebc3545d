/**
 * A gamer's lane among `lanes`: FNV-1a of the gamer's key, so each gamer's events always
 * take the same lane (and keep their order there) while gamers spread evenly.
 */
export function laneOf(applicationId: string, gamerId: string, lanes: number): number {
  const key = `${applicationId}:${gamerId}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % lanes;
}
