import { describe, expect, it } from 'vitest';
import { profileCache } from '../../src/profile-cache.ts';

const ann = { gamerId: 'a', displayName: 'Ann', avatar: 'https://cdn.example/ann.png' };
const bob = { gamerId: 'b', displayName: 'Bob', avatar: '' };

describe('profile cache', () => {
  it('answers what it read within the time to live and names the rest to read, once each', () => {
    let now = 0;
    const cache = profileCache(10, 1_000, () => now);
    cache.remember('app', [ann], cache.lookup('app', []).asOf);
    const { found, missing } = cache.lookup('app', ['a', 'b', 'b', 'a']);
    expect([...found.entries()]).toEqual([['a', ann]]);
    expect(missing).toEqual(['b']);
    now = 999;
    expect(cache.lookup('app', ['a']).missing).toEqual([]);
    now = 1_000;
    expect(cache.lookup('app', ['a']).missing).toEqual(['a']);
  });

  it('keeps applications apart, also for one gamer id in two of them', () => {
    const cache = profileCache(10, 1_000, () => 0);
    cache.remember('app', [ann], cache.lookup('app', []).asOf);
    expect(cache.lookup('other', ['a']).missing).toEqual(['a']);
    cache.registered('other', 'a', { displayName: 'Other Ann', avatar: '' });
    cache.forget('other', 'a');
    expect(cache.lookup('app', ['a']).found.get('a')).toEqual(ann);
    const elsewhere = { ...ann, displayName: 'Ann elsewhere' };
    cache.remember('other', [elsewhere], cache.lookup('other', []).asOf);
    expect(cache.lookup('other', ['a']).found.get('a')).toEqual(elsewhere);
    expect(cache.lookup('app', ['a']).missing).toEqual(['a']);
  });

  it('lets the profile stored longest ago go first past its bound', () => {
    let now = 0;
    const cache = profileCache(2, 1_000, () => now);
    cache.remember('app', [ann], cache.lookup('app', []).asOf);
    now = 1;
    cache.remember('app', [bob], cache.lookup('app', []).asOf);
    now = 2;
    cache.remember('app', [ann], cache.lookup('app', []).asOf);
    cache.remember('app', [{ gamerId: 'c', displayName: 'Cy', avatar: '' }], cache.lookup('app', []).asOf);
    expect(cache.size).toBe(2);
    expect(cache.lookup('app', ['a', 'b', 'c']).missing).toEqual(['b']);
  });

  it('follows a registration and an ended session through this process, the latest session end winning', () => {
    let now = 0;
    const cache = profileCache(10, 1_000, () => now);
    cache.remember('app', [{ ...ann, lastSeenAt: new Date(5_000) }], cache.lookup('app', []).asOf);
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

  it('does not keep what a read in flight found of a gamer whose profile changed meanwhile', () => {
    const cache = profileCache(10, 1_000, () => 0);
    const { asOf } = cache.lookup('app', ['a', 'b']);
    // while the directory is read: Ann's session ends, Bob renames, then the read answers old values
    cache.seen('app', 'a', new Date(9_000));
    cache.registered('app', 'b', { displayName: 'Robert', avatar: '' });
    cache.remember('app', [ann, bob], asOf);
    expect(cache.lookup('app', ['a', 'b']).missing).toEqual(['a', 'b']);
    // a read that starts after the changes is kept
    const later = cache.lookup('app', ['a', 'b']).asOf;
    cache.remember('app', [{ ...ann, lastSeenAt: new Date(9_000) }, { ...bob, displayName: 'Robert' }], later);
    expect(cache.lookup('app', ['a', 'b']).missing).toEqual([]);
  });

  it('keeps nothing of a read older than the changes it still knows of', () => {
    const cache = profileCache(10, 1_000, () => 0);
    const { asOf } = cache.lookup('app', ['a']);
    for (let i = 0; i <= 10_000; i++) cache.seen('app', `other-${i}`, new Date(i));
    cache.remember('app', [ann], asOf);
    expect(cache.lookup('app', ['a']).missing).toEqual(['a']);
  });

  it('drops an erased gamer, and holds nothing when its time to live is 0', () => {
    const cache = profileCache(10, 1_000, () => 0);
    cache.remember('app', [ann], cache.lookup('app', []).asOf);
    cache.forget('app', 'a');
    expect(cache.lookup('app', ['a']).missing).toEqual(['a']);
    const off = profileCache(10, 0, () => 0);
    off.remember('app', [ann], off.lookup('app', []).asOf);
    expect(off.size).toBe(0);
    expect(off.lookup('app', ['a']).missing).toEqual(['a']);
  });
});
