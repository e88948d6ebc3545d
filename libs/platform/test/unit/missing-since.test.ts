import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { MissingSince } from '../../src/jetstream-streams.ts';

const notFound = new JetStreamApiError({ err_code: JetStreamApiCodes.ConsumerNotFound, code: 404, description: 'consumer not found' });

describe('MissingSince', () => {
  it('says so only once every look for the whole while found the consumer missing', () => {
    const missing = new MissingSince(10_000);
    expect(missing.missingLongEnough(notFound, 0)).toBe(false);
    expect(missing.missingLongEnough(notFound, 9_999)).toBe(false);
    expect(missing.missingLongEnough(notFound, 10_000)).toBe(true);
  });

  it('starts over when a look found it, or failed for another reason (a moment\'s not-found makes nothing)', () => {
    const missing = new MissingSince(10_000);
    missing.missingLongEnough(notFound, 0);
    missing.found();
    expect(missing.missingLongEnough(notFound, 10_000)).toBe(false);
    expect(missing.missingLongEnough(new Error('timeout'), 15_000)).toBe(false);
    expect(missing.missingLongEnough(notFound, 19_999)).toBe(false);
    expect(missing.missingLongEnough(notFound, 29_999)).toBe(true);
  });
});
