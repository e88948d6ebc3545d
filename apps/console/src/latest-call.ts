/**
 * Numbers the calls of one action (a search typed again before the last answered), so that
 * only the latest call's answer is shown: `begin()` answers a check that stays true until a
 * later call begins. An older answer arriving last would otherwise replace the newer one.
 */
export function latestCalls(): { begin(): () => boolean } {
  let last = 0;
  return {
    begin() {
      const mine = ++last;
      return () => mine === last;
    },
  };
}
