import { describe, expect, it } from 'vitest';
import { Heartbeat, type Pingable } from '../../src/live/heartbeat.ts';

/** A socket that counts its pings and answers them only when told to. */
class FakeSocket implements Pingable {
  alive = true;
  isClosed = false;
  pings = 0;
  terminated = false;
  ping(): void {
    this.alive = false;
    this.pings++;
  }
  pong(): void {
    this.alive = true;
  }
  terminate(): void {
    this.terminated = true;
    this.isClosed = true;
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const sockets = (n: number) => Array.from({ length: n }, () => new FakeSocket());
const pinged = (all: FakeSocket[]) => all.filter((s) => s.pings > 0).length;

describe('heartbeat', () => {
  it('pings at most a slice of the sockets per turn of the event loop, and every socket once per beat', async () => {
    const all = sockets(1000);
    const heartbeat = new Heartbeat(() => all, 256);
    expect(heartbeat.beat()).toBe(true);
    expect(pinged(all)).toBe(256);
    await turn();
    expect(pinged(all)).toBe(512);
    for (let i = 0; i < 3; i++) await turn();
    expect(pinged(all)).toBe(1000);
    expect(all.every((s) => s.pings === 1)).toBe(true);
  });

  it('cuts the sockets that did not answer the previous beat, and pings the others again', async () => {
    const all = sockets(10);
    const heartbeat = new Heartbeat(() => all, 4);
    heartbeat.beat();
    for (let i = 0; i < 3; i++) await turn();
    for (const s of all.slice(0, 7)) s.pong();
    heartbeat.beat();
    for (let i = 0; i < 3; i++) await turn();
    expect(all.map((s) => s.terminated)).toEqual([false, false, false, false, false, false, false, true, true, true]);
    expect(all.slice(0, 7).every((s) => s.pings === 2)).toBe(true);
  });

  it('skips sockets closed during the walk, and a beat that comes before the walk ended', async () => {
    const all = sockets(10);
    const heartbeat = new Heartbeat(() => all, 4);
    heartbeat.beat();
    all[9]!.isClosed = true;
    expect(heartbeat.beat()).toBe(false);
    for (let i = 0; i < 3; i++) await turn();
    expect(all.map((s) => s.pings)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 0]);
    expect(heartbeat.beat()).toBe(true);
  });

  it('stops its walk', async () => {
    const all = sockets(10);
    const heartbeat = new Heartbeat(() => all, 4);
    heartbeat.beat();
    heartbeat.stop();
    for (let i = 0; i < 3; i++) await turn();
    expect(pinged(all)).toBe(4);
  });
  it('cuts a socket whose ping throws and goes on with the others and the next beats', async () => {
    const all = sockets(6);
    all[1]!.ping = () => {
      throw new Error('not open');
    };
    const heartbeat = new Heartbeat(() => all, 4);
    heartbeat.beat();
    for (let i = 0; i < 3; i++) await turn();
    expect(all[1]!.terminated).toBe(true);
    expect(all.filter((s) => s.pings === 1)).toHaveLength(5);
    expect(heartbeat.beat()).toBe(true);
  });
});
