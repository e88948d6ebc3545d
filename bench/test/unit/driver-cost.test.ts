import { describe, expect, it } from 'vitest';
import { opMsg, opMsgReply } from '../../src/driver-cost.ts';

describe('the raw OP_MSG of the driver-cost bench', () => {
  it('frames one body section: length, request id, opcode 2013, no flags', () => {
    const message = opMsg(7, { ping: 1, $db: 'admin' });
    expect(message.readInt32LE(0)).toBe(message.length);
    expect(message.readInt32LE(4)).toBe(7);
    expect(message.readInt32LE(12)).toBe(2013);
    expect(message.readUInt32LE(16)).toBe(0);
    expect(message[20]).toBe(0);
  });

  it('reads a reply only once it is whole', () => {
    const reply = opMsg(1, { ok: 1 });
    expect(opMsgReply(reply.subarray(0, 3))).toBeUndefined();
    expect(opMsgReply(reply.subarray(0, reply.length - 1))).toBeUndefined();
    expect(opMsgReply(reply)).toEqual({ ok: 1 });
  });
});
