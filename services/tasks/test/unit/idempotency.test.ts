import { describe, expect, it } from 'vitest';
import { assignFingerprint, decideOnKey } from '../../src/domain/idempotency.ts';

describe('idempotency keys', () => {
  it('the same request in any family casing has one fingerprint', () => {
    expect(assignFingerprint({ family: 'DAILY', numberOfTasks: 2 })).toBe(assignFingerprint({ family: 'daily', numberOfTasks: 2 }));
    expect(assignFingerprint({ family: 'daily', numberOfTasks: 2 })).not.toBe(assignFingerprint({ family: 'daily', numberOfTasks: 3 }));
    expect(assignFingerprint({ family: 'daily', numberOfTasks: 2 })).not.toBe(assignFingerprint({ family: 'weekly', numberOfTasks: 2 }));
  });

  it('replays a finished request, refuses another body, waits for or takes over a running one', () => {
    const fp = assignFingerprint({ family: 'daily', numberOfTasks: 1 });
    const now = new Date('2026-11-21T12:00:00Z');
    const started = new Date(now.getTime() - 1_000);
    expect(decideOnKey({ fingerprint: fp, state: 'done', startedAt: started }, fp, now, 30_000)).toBe('replay');
    expect(decideOnKey({ fingerprint: fp, state: 'done', startedAt: started }, 'other', now, 30_000)).toBe('reused');
    expect(decideOnKey({ fingerprint: fp, state: 'pending', startedAt: started }, 'other', now, 30_000)).toBe('reused');
    expect(decideOnKey({ fingerprint: fp, state: 'pending', startedAt: started }, fp, now, 30_000)).toBe('in-progress');
    expect(decideOnKey({ fingerprint: fp, state: 'pending', startedAt: new Date(now.getTime() - 60_000) }, fp, now, 30_000)).toBe('take-over');
  });
});
