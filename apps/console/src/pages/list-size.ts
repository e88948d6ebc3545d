/**
 * A list's size as the Gamer page shows it. The admin API answers at most `limit` entries
 * and no total, so a list exactly that long may hold more: "first 50", never "50".
 */
export function listSize(shown: number, limit: number): string {
  return shown >= limit ? `first ${shown}` : String(shown);
}
