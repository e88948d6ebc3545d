import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOG_FLUSH_MS, logDestination } from '../../src/observability.ts';

function file(): string {
  return join(mkdtempSync(join(tmpdir(), 'gfts-log-')), 'out.log');
}

/** Opening the file is asynchronous: written lines would wait for it, not for the buffer. */
async function ready(dest: ReturnType<typeof logDestination>): Promise<void> {
  if ((dest as unknown as { fd: number }).fd < 0) await once(dest, 'ready');
}

/** A destination writing to a file of its own, opened; `written()` is what reached the file. */
async function opened(bufferBytes: number) {
  const path = file();
  const dest = logDestination(bufferBytes, path);
  await ready(dest);
  return { dest, written: () => readFileSync(path, 'utf8') };
}

describe('log destination', () => {
  const open: Array<{ destroy(): void }> = [];
  // pino's periodic flush is a setInterval started with the destination: faked, it fires only
  // when a test moves the clock, so a line seen still held cannot have raced it. Opening and
  // writing the files stays real; nothing here polls (expect.poll would move the fake clock).
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    open.splice(0).forEach((dest) => dest.destroy());
    vi.useRealTimers();
  });
  const destination = async (bufferBytes: number) => {
    const made = await opened(bufferBytes);
    open.push(made.dest);
    return made;
  };
  /** The byte count of the destination's next write to its file, once it is there. */
  const nextWrite = async (dest: ReturnType<typeof logDestination>) => ((await once(dest, 'write')) as [number])[0];

  /**
   * Opens an unbuffered destination and waits until a line written to it reached its file: a
   * line another destination had written through at once would have reached its file too.
   */
  const afterAnUnbufferedWrite = async () => {
    const marker = await destination(0);
    const wrote = nextWrite(marker.dest);
    marker.dest.write('{"msg":"marker"}\n');
    await wrote;
    expect(marker.written()).toBe('{"msg":"marker"}\n');
  };

  it('holds lines until the buffer fills, then writes them in one go', async () => {
    const { dest, written } = await destination(1024);
    dest.write('{"msg":"first"}\n');
    await afterAnUnbufferedWrite();
    expect(written()).toBe('');
    const line = `{"msg":"${'x'.repeat(100)}"}\n`;
    const wrote = nextWrite(dest);
    for (let i = 0; i < 12; i++) dest.write(line);
    // one write of every line held once they reached the buffer's size (ASCII: bytes are characters)
    const bytes = await wrote;
    expect(bytes).toBeGreaterThanOrEqual(1024);
    expect(written()).toBe(`{"msg":"first"}\n${line.repeat(12)}`.slice(0, bytes));
  });

  it('writes a lone line at the periodic flush, LOG_FLUSH_MS after the destination opened', async () => {
    const { dest, written } = await destination(4096);
    dest.write('{"msg":"alone"}\n');
    vi.advanceTimersByTime(LOG_FLUSH_MS - 1);
    await afterAnUnbufferedWrite();
    expect(written()).toBe('');
    const wrote = nextWrite(dest);
    vi.advanceTimersByTime(1);
    await wrote;
    expect(written()).toBe('{"msg":"alone"}\n');
  });

  it('writes each line at once with a buffer of 0', async () => {
    const { dest, written } = await destination(0);
    const wrote = nextWrite(dest);
    dest.write('{"msg":"now"}\n');
    await wrote;
    expect(written()).toBe('{"msg":"now"}\n');
  });
});
