import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { LOG_FLUSH_MS, logDestination } from '../../src/observability.ts';

function file(): string {
  return join(mkdtempSync(join(tmpdir(), 'gfts-log-')), 'out.log');
}

/** Opening the file is asynchronous: written lines would wait for it, not for the buffer. */
async function ready(dest: ReturnType<typeof logDestination>): Promise<void> {
  if ((dest as unknown as { fd: number }).fd < 0) await once(dest, 'ready');
}

const read = (path: string) => readFileSync(path, 'utf8');

describe('log destination', () => {
  it('holds lines until the buffer fills, then writes them in one go', async () => {
    const path = file();
    const dest = logDestination(1024, path);
    await ready(dest);
    dest.write('{"msg":"first"}\n');
    await sleep(50);
    expect(read(path)).toBe('');
    const line = `{"msg":"${'x'.repeat(100)}"}\n`;
    for (let i = 0; i < 12; i++) dest.write(line);
    await sleep(50);
    expect(read(path).startsWith('{"msg":"first"}\n')).toBe(true);
    expect(read(path).length).toBeGreaterThan(1024);
    dest.destroy();
  });

  it('writes a lone line within the flush interval', async () => {
    const path = file();
    const dest = logDestination(4096, path);
    await ready(dest);
    dest.write('{"msg":"alone"}\n');
    await sleep(50);
    expect(read(path)).toBe('');
    await sleep(LOG_FLUSH_MS + 200);
    expect(read(path)).toBe('{"msg":"alone"}\n');
    dest.destroy();
  });

  it('writes each line at once with a buffer of 0', async () => {
    const path = file();
    const dest = logDestination(0, path);
    await ready(dest);
    dest.write('{"msg":"now"}\n');
    await sleep(50);
    expect(read(path)).toBe('{"msg":"now"}\n');
    dest.destroy();
  });
});
