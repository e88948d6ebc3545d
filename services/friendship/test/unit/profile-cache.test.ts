import { describe, expect, it } from 'vitest';
import { profileCache } from '../../src/profile-cache.ts';

const ann = { gamerId: 'a', displayName: 'Ann', avatar: 'https://cdn.example/ann.png' };
const bob = { gamerId: 'b', displayName: 'Bob', avatar: '' };

describe('profile cache', () => {
  it('answers what it read within the time to live and names the rest to read, once each', () => {
    let now = 0;
    const cache = profileCache(10, 1_000, () => now);
    cache.remember('app', [ann]);
    const { found, missing } = cache.lookup('app', ['a', 'b', 'b', 'a']);
    expect([...found.entries()]).toEqual([['a', ann]]);
    expect(missing).toEqual(['b']);
    now = 999;
    expect(cache.lookup('app', ['a']).missing).toEqual([]);
    now = 1_000;
    expect(cache.lookup('app', ['a']).missing).toEqual(['a']);
  });

  it('keeps applications apart', () => {
    const cache = profileCache(10, 1_000, () => 0);
    cache.remember('app', [ann]);
    expect(cache.lookup('other', ['a']).missing).toEqual(['a']);
  });

  it('lets the profile stored longest ago go first past its bound', () => {
    let now = 0;
    const cache = profileCache(2, 1_000, () => now);
    cache.remember('app', [ann]);
    now = 1;
    cache.remember('app', [bob]);
    now = 2;
    cache.remember('app', [ann]);
    cache.remember('app', [{ gamerId: 'c', displayName: 'Cy', avatar: '' }]);
    expect(cache.size).toBe(2);
    expect(cache.lookup('app', ['a', 'b', 'c']).missing).toEqual(['b']);
  });

  it('follows a registration and an ended session through this process, the latest session end winning', () => {
    let now = 0;
    const cache = profileCache(10, 1_000, () => now);
    cache.remember('app', [{ ...ann, lastSeenAt: new Date(5_000) }]);
    cache.registered('app', 'a', { displayName: 'Annie', avatar: '' });
    cache.seen('app', 'a', new Date(4_000));
    expect(cache.lookup('app', ['a']).found.get('a')).toEqual({ gamerId: 'a', displayName: 'Annie', avatar: '', lastSeenAt: new Date(5_000) });
    cache.seen('app', 'a', new Date(6_000));
    expect(cache.lookup('app', ['a']).found.get('a')?.lastSeenAt).toEqual(new Date(6_000));
    // neither makes a profile of a gamer it does not hold, nor makes one fresh again
    cache.registered('app', 'b', { displayName: 'Bob', avatar: '' });
    cache.seen('app', 'b', new Date(6_000));
    expect(cache.size).toBe(1);
    now = 1_000;
    cache.seen('app', 'a', new Date(7_000));
    expect(cache.lookup('app', ['a']).missing).toEqual(['a']);
  });

  it('drops an erased gamer, and holds nothing when its time to live is 0', () => {
    const cache = profileCache(10, 1_000, () => 0);
    cache.remember('app', [ann]);
    cache.forget('app', 'a');
    expect(cache.lookup('app', ['a']).missing).toEqual(['a']);
    const off = profileCache(10, 0, () => 0);
    off.remember('app', [ann]);
    expect(off.size).toBe(0);
    expect(off.lookup('app', ['a']).missing).toEqual(['a']);
  });
});
