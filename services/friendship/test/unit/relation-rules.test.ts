import { AppError } from '@gfts/platform';
import { describe, expect, it } from 'vitest';
import { assertNotBlocked, decideFriendRequest, membersOf, otherMember, pairKeyOf, pendingRequest, type FriendRequestSituation } from '../../src/domain/relation-rules.ts';

const A = '0190a000-0000-7000-8000-00000000000a';
const B = '0190a000-0000-7000-8000-00000000000b';
const REL = '0190a000-0000-7000-8000-0000000000ff';
const noBlocks = { targetBlocksCaller: false, callerBlocksTarget: false };
const base: FriendRequestSituation = { caller: A, target: B, targetKnown: true, blocks: noBlocks, existing: null };

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

describe('decideFriendRequest', () => {
  it('creates a request when nothing exists between the two', () => {
    expect(decideFriendRequest(base)).toEqual({ kind: 'create' });
  });

  it('is idempotent for the caller\'s own pending request', () => {
    expect(decideFriendRequest({ ...base, existing: { id: REL, status: 'pending', requester: A } })).toEqual({ kind: 'already-requested', relationId: REL });
  });

  it('accepts a crossed request: the target already asked the caller', () => {
    expect(decideFriendRequest({ ...base, existing: { id: REL, status: 'pending', requester: B } })).toEqual({ kind: 'accept-crossed', relationId: REL });
  });

  it('refuses friends with 409 ALREADY_FRIENDS whoever asked first', () => {
    for (const requester of [A, B]) {
      expect(refusal(() => decideFriendRequest({ ...base, existing: { id: REL, status: 'accepted', requester } }))).toMatchObject({ status: 409, code: 'ALREADY_FRIENDS' });
    }
  });

  it('refuses the caller as target with 400 CANNOT_TARGET_SELF before anything else', () => {
    expect(refusal(() => decideFriendRequest({ ...base, target: A, targetKnown: false }))).toMatchObject({ status: 400, code: 'CANNOT_TARGET_SELF' });
  });

  it('answers 404 for a target the directory does not know', () => {
    expect(refusal(() => decideFriendRequest({ ...base, targetKnown: false }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('refuses with 403 BLOCKED when the target blocks the caller, even over a pending request', () => {
    const blocks = { targetBlocksCaller: true, callerBlocksTarget: false };
    expect(refusal(() => decideFriendRequest({ ...base, blocks }))).toMatchObject({ status: 403, code: 'BLOCKED' });
    expect(refusal(() => decideFriendRequest({ ...base, blocks, existing: { id: REL, status: 'pending', requester: B } }))).toMatchObject({ status: 403, code: 'BLOCKED' });
  });

  it('refuses with 403 BLOCKED when the caller blocks the target, telling them to unblock first', () => {
    const refused = refusal(() => decideFriendRequest({ ...base, blocks: { targetBlocksCaller: false, callerBlocksTarget: true } }));
    expect(refused).toMatchObject({ status: 403, code: 'BLOCKED' });
    expect(refused.detail).toMatch(/unblock/);
  });

  it('checks blocks before the existing friendship', () => {
    const existing = { id: REL, status: 'accepted' as const, requester: A };
    expect(refusal(() => decideFriendRequest({ ...base, existing, blocks: { targetBlocksCaller: true, callerBlocksTarget: true } }))).toMatchObject({ code: 'BLOCKED' });
  });
});

describe('assertNotBlocked', () => {
  it('lets an unblocked pair through', () => {
    expect(() => assertNotBlocked(noBlocks)).not.toThrow();
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
