import { describe, expect, it } from 'vitest';
import { presenceLedger, type PresenceWrite } from '../../src/presence/ledger.ts';

const drain = (ledger: ReturnType<typeof presenceLedger>) => {
  const out: PresenceWrite[] = [];
  for (let w = ledger.next(); w; w = ledger.next()) out.push(w);
  return out;
};
const ops = (writes: PresenceWrite[]) => writes.map((w) => `${w.op} ${w.key}`);

describe('presenceLedger (what a notifications replica writes, and when)', () => {
  it('writes a held gamer once and deletes them once released', () => {
    const ledger = presenceLedger();
    ledger.hold('a');
    const [put] = drain(ledger);
    expect(ops([put!])).toEqual(['put a']);
    ledger.written(put!);
    expect(drain(ledger)).toEqual([]);
    ledger.release('a');
    const [del] = drain(ledger);
    expect(ops([del!])).toEqual(['delete a']);
    ledger.written(del!);
    expect(drain(ledger)).toEqual([]);
  });

  it('coalesces: a connect and a close before the write left cost nothing; a storm of connects is one write per gamer', () => {
    const ledger = presenceLedger();
    ledger.hold('a');
    ledger.release('a');
    expect(drain(ledger)).toEqual([]);
    for (let i = 0; i < 3; i++) {
      ledger.hold('b');
      ledger.release('b');
      ledger.hold('b');
    }
    expect(ops(drain(ledger))).toEqual(['put b']);
    expect(ledger.pending).toBe(0);
  });

  it('keeps one write per key in flight; the next one is decided when it is answered', () => {
    const ledger = presenceLedger();
    ledger.hold('a');
    const put = ledger.next()!;
    ledger.release('a');
    ledger.hold('a');
    ledger.release('a');
    expect(ledger.next()).toBeUndefined();
    ledger.written(put);
    expect(ops(drain(ledger))).toEqual(['delete a']);
  });

  it('still deletes a released gamer whose put failed (it may have landed), and retries failures only when told', () => {
    const ledger = presenceLedger();
    ledger.hold('a');
    ledger.failed(ledger.next()!);
    expect(drain(ledger)).toEqual([]);
    ledger.retryFailed();
    const put = ledger.next()!;
    expect(ops([put])).toEqual(['put a']);
    ledger.failed(put);
    ledger.release('a');
    expect(ops(drain(ledger))).toEqual(['delete a']);
  });

  it('puts again a gamer held again after a delete that failed (it may have landed), at once and after retries', () => {
    const ledger = presenceLedger();
    ledger.hold('a');
    ledger.written(ledger.next()!);
    ledger.release('a');
    // the purge reached the server, its answer did not
    ledger.failed(ledger.next()!);
    ledger.hold('a');
    // before: still taken for present, nothing written, the connected gamer offline
    const [put] = drain(ledger);
    expect(ops([put!])).toEqual(['put a']);
    ledger.failed(put!);
    ledger.retryFailed();
    expect(ops(drain(ledger))).toEqual(['put a']);
  });

  it('deletes again a released gamer whose delete failed, when told to retry', () => {
    const ledger = presenceLedger();
    ledger.hold('a');
    ledger.written(ledger.next()!);
    ledger.release('a');
    ledger.failed(ledger.next()!);
    expect(drain(ledger)).toEqual([]);
    ledger.retryFailed();
    expect(ops(drain(ledger))).toEqual(['delete a']);
  });

  it('writes every held gamer again after the bucket lost them, and ignores answers from before', () => {
    const ledger = presenceLedger();
    ledger.hold('a');
    ledger.hold('b');
    const [a, b] = drain(ledger);
    ledger.written(a!);
    ledger.rewriteAll();
    // b's put was answered after the purge: it no longer counts, b is written again
    ledger.written(b!);
    expect(ops(drain(ledger)).sort()).toEqual(['put a', 'put b']);
    expect(ledger.held).toBe(2);
  });

  it('deletes the key of a gamer released while a put that left before the purge was in flight (it may have landed after)', () => {
    for (const answer of ['written', 'failed'] as const) {
      const ledger = presenceLedger();
      ledger.hold('b');
      const [put] = drain(ledger);
      ledger.rewriteAll();
      ledger.release('b');
      expect(drain(ledger)).toEqual([]);
      ledger[answer](put!);
      expect({ answer, ops: ops(drain(ledger)) }).toEqual({ answer, ops: ['delete b'] });
      expect(ledger.held).toBe(0);
    }
  });

  it('deletes again, after a rewrite, the key of a gamer let go whose delete failed or is still waiting', () => {
    const ledger = presenceLedger();
    for (const key of ['failed', 'waiting', 'kept']) ledger.hold(key);
    for (const put of drain(ledger)) ledger.written(put);
    ledger.release('failed');
    ledger.failed(ledger.next()!);
    ledger.release('waiting');
    ledger.rewriteAll();
    expect(ops(drain(ledger)).sort()).toEqual(['delete failed', 'delete waiting', 'put kept']);
  });
});
