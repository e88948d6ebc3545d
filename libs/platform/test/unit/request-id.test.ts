import { REQUEST_ID_HEADER } from '@gfts/contracts';
import { headers } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { requestIdOf } from '../../src/request-context.ts';

const withHeader = (value: string) => {
  const h = headers();
  h.set(REQUEST_ID_HEADER, value);
  return { headers: h };
};

describe('requestIdOf (a NATS message from a publisher that may be a game server)', () => {
  it('takes an id as the gateway takes it on HTTP', () => {
    expect(requestIdOf(withHeader('req-42:a.b_c'))).toBe('req-42:a.b_c');
    expect(requestIdOf({})).toBeUndefined();
  });

  it('ignores one too long or with other characters (the event then goes by its eventId)', () => {
    expect(requestIdOf(withHeader('x'.repeat(129)))).toBeUndefined();
    expect(requestIdOf(withHeader('id with spaces'))).toBeUndefined();
    expect(requestIdOf(withHeader('{"log":"injection"}'))).toBeUndefined();
  });

  it('takes headers nats.js cannot decode (a name with a space, from another library\'s client) as none, without throwing', () => {
    // what nats.js does on the first read of such a message's headers
    const undecodable = { get headers(): never { throw new Error("' ' is not a valid character in a header name"); } };
    expect(requestIdOf(undecodable)).toBeUndefined();
  });
});
