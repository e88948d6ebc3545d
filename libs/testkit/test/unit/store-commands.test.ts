import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { wireCommands } from '../../src/store-commands.ts';

const { BSON } = mongoose.mongo;

/** An OP_MSG as a driver sends it: header, flagBits, one kind-0 section with the command. */
function opMsg(command: Record<string, unknown>, opCode = 2013): Buffer {
  const body = Buffer.from(BSON.serialize(command));
  const message = Buffer.alloc(16 + 4 + 1 + body.length);
  message.writeInt32LE(message.length, 0);
  message.writeInt32LE(7, 4);
  message.writeInt32LE(0, 8);
  message.writeInt32LE(opCode, 12);
  message.writeUInt32LE(0, 16);
  message[20] = 0;
  body.copy(message, 21);
  return message;
}

describe('command names read from the wire', () => {
  it('names each complete message by its command and collection, in order', () => {
    const wire = Buffer.concat([opMsg({ find: 'relations', filter: {} }), opMsg({ aggregate: 'relations', pipeline: [] }), opMsg({ update: 'lists', updates: [] })]);
    expect(wireCommands(wire)).toEqual({ commands: [{ name: 'find', collection: 'relations' }, { name: 'aggregate', collection: 'relations' }, { name: 'update', collection: 'lists' }], rest: Buffer.alloc(0) });
  });

  it('keeps a message split across chunks until its last byte arrives', () => {
    const wire = Buffer.concat([opMsg({ find: 'a' }), opMsg({ findAndModify: 'b', query: {} })]);
    const cut = wire.length - 5;
    const first = wireCommands(wire.subarray(0, cut));
    expect(first.commands).toEqual([{ name: 'find', collection: 'a' }]);
    const second = wireCommands(Buffer.concat([first.rest, wire.subarray(cut)]));
    expect(second).toEqual({ commands: [{ name: 'findAndModify', collection: 'b' }], rest: Buffer.alloc(0) });
    // fewer bytes than a header: nothing yet
    expect(wireCommands(wire.subarray(0, 10)).commands).toEqual([]);
  });

  it('skips messages of other op codes, and names no collection when the command has none', () => {
    const wire = Buffer.concat([opMsg({ isMaster: 1 }, 2004), opMsg({ find: 'a' }), opMsg({ aggregate: 1, pipeline: [] })]);
    expect(wireCommands(wire).commands).toEqual([{ name: 'find', collection: 'a' }, { name: 'aggregate' }]);
  });
});
