import { describe, expect, it } from 'vitest';
import { parseRssBytes, parseStatTicks, processStartEpochMs } from '../../src/procstat.ts';

describe('/proc parsing', () => {
  it('reads utime + stime even when the command has spaces and parentheses', () => {
    const stat = '4242 (node (gateway) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 11 0 500 1000 2000';
    expect(parseStatTicks(stat)).toBe(1234 + 567);
  });

  it('reads VmRSS in bytes', () => {
    expect(parseRssBytes('Name:\tnode\nVmRSS:\t  123456 kB\nThreads:\t11\n')).toBe(123456 * 1024);
    expect(parseRssBytes('Name:\tkthread\n')).toBeNaN();
  });
});

describe('process start time', () => {
  it('places this process\'s start within its own lifetime', () => {
    const started = processStartEpochMs(process.pid)!;
    expect(started).toBeLessThanOrEqual(Date.now() + 1_000);
    expect(started).toBeGreaterThan(Date.now() - process.uptime() * 1000 - 5_000);
  });
  it('has no start time for a process that does not exist', () => {
    expect(processStartEpochMs(2 ** 30)).toBeUndefined();
  });
});
