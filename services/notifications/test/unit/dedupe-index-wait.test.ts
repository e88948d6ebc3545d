import { describe, expect, it, vi } from 'vitest';
import { awaitDedupeIndex } from '../../src/repository/store.ts';

function recorder() {
  const lines: string[] = [];
  return {
    lines,
    log: { info: (msg: string) => void lines.push(`info ${msg}`), warn: (msg: string) => void lines.push(`warn ${msg}`), error: (_obj: object, msg: string) => void lines.push(`error ${msg}`) },
  };
}

describe('waiting for the inbox dedupe index at start', () => {
  it('waits for a quick build and says nothing', async () => {
    const { lines, log } = recorder();
    await awaitDedupeIndex(Promise.resolve(), 1_000, log);
    expect(lines).toEqual([]);
  });

  it('serves after the wait while a long build goes on, and says when it is done', async () => {
    const { lines, log } = recorder();
    let finish!: () => void;
    const build = new Promise<void>((resolve) => (finish = resolve));
    // fake time: the wait ends after its 50 ms, with the build still going
    vi.useFakeTimers();
    try {
      const waited = awaitDedupeIndex(build, 50, log);
      await vi.advanceTimersByTimeAsync(50);
      await waited;
    } finally {
      vi.useRealTimers();
    }
    expect(lines).toEqual([expect.stringMatching(/^warn the inbox dedupe index is still being built after 50 ms/)]);
    finish();
    await build;
    await new Promise((r) => setImmediate(r));
    expect(lines.at(-1)).toBe('info the inbox dedupe index is built');
  });

  it('logs a failed build and lets the replica start', async () => {
    const { lines, log } = recorder();
    await awaitDedupeIndex(Promise.reject(new Error('commit quorum not reached')), 1_000, log);
    expect(lines).toEqual([expect.stringMatching(/^error the inbox dedupe index could not be built/)]);
  });
});
