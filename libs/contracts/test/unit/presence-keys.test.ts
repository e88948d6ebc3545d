import { describe, expect, it } from 'vitest';
import { parsePresenceKey, presenceBeatKey, presenceHolderFilter, presenceHoldKey } from '../../src/presence-keys.ts';

const APP = '0190f1a2-0000-7000-8000-000000000001';
const GAMER = '0190f1a2-0000-7000-8000-000000000002';
const HOLDER = '9b2c1d3e-4f50-4a61-8b72-93a4b5c6d7e8';

describe('presence keys', () => {
  it('reads back what a notifications replica writes', () => {
    expect(parsePresenceKey(presenceBeatKey(HOLDER))).toEqual({ kind: 'beat', holder: HOLDER });
    expect(parsePresenceKey(presenceHoldKey(HOLDER, APP, GAMER))).toEqual({ kind: 'hold', holder: HOLDER, applicationId: APP, gamerId: GAMER });
  });

  it('puts the holder first, so one filter covers every key of a replica and none of another', () => {
    const filter = presenceHolderFilter(HOLDER);
    const matches = (key: string) => key.startsWith(filter.slice(0, -1)) && key.length > filter.length - 1;
    expect(matches(presenceBeatKey(HOLDER))).toBe(true);
    expect(matches(presenceHoldKey(HOLDER, APP, GAMER))).toBe(true);
    expect(matches(presenceHoldKey('another-holder', APP, GAMER))).toBe(false);
  });

  it('ignores keys of any other shape (stray keys; the per-gamer layout before lives in another bucket)', () => {
    for (const key of [`${HOLDER}.${APP}`, `${HOLDER}.alive.x`, 'alive', `${HOLDER}.${APP}.not-a-uuid`, `bad holder.alive`]) {
      expect(parsePresenceKey(key), key).toBeUndefined();
    }
  });
});
