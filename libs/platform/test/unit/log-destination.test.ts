import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
  afterEach(() => open.splice(0).forEach((dest) => dest.destroy()));
  const destination = async (bufferBytes: number) => {
    const made = await opened(bufferBytes);
    open.push(made.dest);
    return made;
  };

  /**
   * Opens an unbuffered destination and waits until a line written to it reached its file: a
   * line another destination had written through at once would have reached its file too.
   */
  const afterAnUnbufferedWrite = async () => {
    const marker = await destination(0);
    marker.dest.write('{"msg":"marker"}\n');
    await expect.poll(marker.written).toBe('{"msg":"marker"}\n');
  };

  it('holds lines until the buffer fills, then writes them in one go', async () => {
    const { dest, written } = await destination(1024);
    dest.write('{"msg":"first"}\n');
    await afterAnUnbufferedWrite();
    expect(written()).toBe('');
    const line = `{"msg":"${'x'.repeat(100)}"}\n`;
    for (let i = 0; i < 12; i++) dest.write(line);
    await expect.poll(() => written().length).toBeGreaterThan(1024);
    expect(written().startsWith('{"msg":"first"}\n')).toBe(true);
  });

  it('writes a lone line within the flush interval', async () => {
    const { dest, written } = await destination(4096);
    dest.write('{"msg":"alone"}\n');
    await afterAnUnbufferedWrite();
    expect(written()).toBe('');
    await expect.poll(written, { timeout: LOG_FLUSH_MS + 500, interval: 20 }).toBe('{"msg":"alone"}\n');
  });

  it('writes each line at once with a buffer of 0', async () => {
    const { dest, written } = await destination(0);
    dest.write('{"msg":"now"}\n');
    await expect.poll(written).toBe('{"msg":"now"}\n');
  });
});
