import { AppError } from '@gfts/platform';
import { describe, expect, it } from 'vitest';
import { assertNotBlocked, assertNotSelf, blockRefusal, decideOnExistingRelation, membersOf, otherMember, pairKeyOf, pendingRequest, refusalOf } from '../../src/domain/relation-rules.ts';

const A = '0190a000-0000-7000-8000-00000000000a';
const B = '0190a000-0000-7000-8000-00000000000b';
const REL = '0190a000-0000-7000-8000-0000000000ff';
const noBlocks = { targetBlocksCaller: false, callerBlocksTarget: false };

/** The status and code the thrown AppError would answer with. */
function refusal(run: () => unknown): { status: number; code: string; detail: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, code: error.code, detail: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('pair keys', () => {
  it('are the same whichever gamer asks', () => {
    expect(pairKeyOf(A, B)).toBe(`${A}:${B}`);
    expect(pairKeyOf(B, A)).toBe(`${A}:${B}`);
    expect(membersOf(B, A)).toEqual([A, B]);
  });

  it('name the other member of a relation', () => {
    expect(otherMember({ requester: A, addressee: B }, A)).toBe(B);
    expect(otherMember({ requester: A, addressee: B }, B)).toBe(A);
  });
});

describe('decideOnExistingRelation', () => {
  it('is idempotent for the caller\'s own pending request', () => {
    expect(decideOnExistingRelation(A, { id: REL, status: 'pending', requester: A })).toEqual({ kind: 'already-requested', relationId: REL });
  });

  it('accepts a crossed request: the target already asked the caller', () => {
    expect(decideOnExistingRelation(A, { id: REL, status: 'pending', requester: B })).toEqual({ kind: 'accept-crossed', relationId: REL });
  });

  it('refuses friends with 409 ALREADY_FRIENDS whoever asked first', () => {
    for (const requester of [A, B]) {
      expect(refusal(() => decideOnExistingRelation(A, { id: REL, status: 'accepted', requester }))).toMatchObject({ status: 409, code: 'ALREADY_FRIENDS' });
    }
  });
});

describe('refusalOf (a new request, once written)', () => {
  const passing = { targetKnown: true, blocks: noBlocks, withinPendingLimit: true };
  const blocked = { targetBlocksCaller: false, callerBlocksTarget: true };

  it('lets a request stand when every check passes', () => {
    expect(refusalOf(passing)).toBeUndefined();
  });

  it('refuses in answer order: unknown target (404), then a block (403), then the pending limit (409)', () => {
    expect(refusalOf({ targetKnown: false, blocks: blocked, withinPendingLimit: false })).toEqual({ kind: 'unknownTarget' });
    expect(refusalOf({ ...passing, blocks: blocked, withinPendingLimit: false })).toEqual({ kind: 'blocked', blocks: blocked });
    expect(refusalOf({ ...passing, blocks: { targetBlocksCaller: true, callerBlocksTarget: false } })).toMatchObject({ kind: 'blocked' });
    expect(refusalOf({ ...passing, withinPendingLimit: false })).toEqual({ kind: 'pendingLimit' });
  });

  it('refuses a crossed request across a block either way, and only then (blockRefusal)', () => {
    expect(blockRefusal(noBlocks)).toBeUndefined();
    expect(blockRefusal(blocked)).toEqual({ kind: 'blocked', blocks: blocked });
    expect(blockRefusal({ targetBlocksCaller: true, callerBlocksTarget: false })).toMatchObject({ kind: 'blocked' });
  });
});

describe('assertNotSelf', () => {
  it('refuses the caller as target with 400 CANNOT_TARGET_SELF', () => {
    expect(refusal(() => assertNotSelf(A, A, 'send a friend request to'))).toMatchObject({ status: 400, code: 'CANNOT_TARGET_SELF' });
    expect(() => assertNotSelf(A, B, 'send a friend request to')).not.toThrow();
  });
});

describe('assertNotBlocked', () => {
  it('lets an unblocked pair through', () => {
    expect(() => assertNotBlocked(noBlocks)).not.toThrow();
  });

  it('refuses with 403 BLOCKED when the target blocks the caller, without saying more', () => {
    expect(refusal(() => assertNotBlocked({ targetBlocksCaller: true, callerBlocksTarget: false }))).toMatchObject({ status: 403, code: 'BLOCKED', detail: 'this gamer does not accept friend requests from you' });
    // a block both ways answers as the target's block does
    expect(refusal(() => assertNotBlocked({ targetBlocksCaller: true, callerBlocksTarget: true }))).toMatchObject({ status: 403, detail: 'this gamer does not accept friend requests from you' });
  });

  it('refuses with 403 BLOCKED when the caller blocks the target, telling them to unblock first', () => {
    const refused = refusal(() => assertNotBlocked({ targetBlocksCaller: false, callerBlocksTarget: true }));
    expect(refused).toMatchObject({ status: 403, code: 'BLOCKED' });
    expect(refused.detail).toMatch(/unblock/);
  });
});

describe('relation documents', () => {
  const APP = '0190a000-0000-7000-8000-0000000000aa';
  const asked = new Date('2026-01-01T00:00:00Z');

  it('a pending request knows its pair, whoever asked', () => {
    expect(pendingRequest(APP, B, A, REL, asked)).toEqual({
      id: REL, applicationId: APP, pairKey: `${A}:${B}`, members: [A, B], requester: B, addressee: A, status: 'pending', createdAt: asked, updatedAt: asked,
    });
  });
});
