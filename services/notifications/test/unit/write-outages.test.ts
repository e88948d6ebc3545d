import { describe, expect, it } from 'vitest';
import { WriteOutages } from '../../src/presence/write-outages.ts';

describe('WriteOutages (the presence holder\'s outage log)', () => {
  it('opens an outage at its first failed write and ends it at the first write begun after that went through', () => {
    const o = new WriteOutages();
    const [a, b, c] = [o.start(), o.start(), o.start()];
    expect(o.failed(a, 'beat')).toBe('opened');
    expect(o.failed(b, 'put')).toBe('counted');
    expect(o.wrote(c, 'beat')).toBe(2);
    // and a new failure after that opens the next one
    expect(o.failed(o.start(), 'beat')).toBe('opened');
  });

  it('does not end an outage with the late success of a write begun before it', () => {
    const o = new WriteOutages();
    const early = o.start();
    const failing = o.start();
    expect(o.failed(failing, 'beat')).toBe('opened');
    expect(o.wrote(early, 'put')).toBeUndefined();
    expect(o.wrote(o.start(), 'beat')).toBe(1);
  });

  it('does not open an outage with the late failure of a write older than one of its kind that went through', () => {
    const o = new WriteOutages();
    const [old, newer] = [o.start(), o.start()];
    expect(o.wrote(newer, 'put')).toBeUndefined();
    expect(o.failed(old, 'put')).toBe('stale');
    // another kind's success says nothing of it: a failing purge after a put went through opens one
    expect(o.failed(o.start(), 'purge')).toBe('opened');
  });

  it('does not open a new outage with a late failure of a write begun before the last one ended, whatever its kind', () => {
    const o = new WriteOutages();
    const during = o.start();
    expect(o.failed(o.start(), 'beat')).toBe('opened');
    // a heartbeat ends the outage; then a put begun during it fails late
    expect(o.wrote(o.start(), 'beat')).toBe(1);
    expect(o.failed(during, 'put')).toBe('stale');
  });
});
