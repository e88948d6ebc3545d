import { mongo } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { isStoreUnreachable } from '../../src/store-errors.ts';

describe('isStoreUnreachable', () => {
  it('takes the driver\'s network, selection and closed-client errors for the store away', () => {
    expect(isStoreUnreachable(new mongo.MongoNetworkError('connection 3 to 10.0.0.5:27017 closed'))).toBe(true);
    expect(isStoreUnreachable(new mongo.MongoNetworkTimeoutError('connection timed out'))).toBe(true);
    expect(isStoreUnreachable(new mongo.MongoNotConnectedError('client must be connected'))).toBe(true);
    expect(isStoreUnreachable(new mongo.MongoTopologyClosedError())).toBe(true);
  });

  it('takes a primary stepping down or shutting down for the store away, by its code', () => {
    expect(isStoreUnreachable(new mongo.MongoServerError({ code: 189, errmsg: 'PrimarySteppedDown' }))).toBe(true);
    expect(isStoreUnreachable(new mongo.MongoServerError({ code: 91, errmsg: 'ShutdownInProgress' }))).toBe(true);
  });

  it('looks at the causes of a wrapping error', () => {
    expect(isStoreUnreachable(new Error('reading the list failed', { cause: new mongo.MongoNetworkError('reset') }))).toBe(true);
  });

  it('does not take the request\'s or the code\'s faults for an outage', () => {
    expect(isStoreUnreachable(new mongo.MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key' }))).toBe(false);
    expect(isStoreUnreachable(new mongo.MongoServerError({ code: 59, errmsg: 'no such command' }))).toBe(false);
    expect(isStoreUnreachable(new TypeError('cannot read properties of undefined'))).toBe(false);
    expect(isStoreUnreachable('MongoNetworkError')).toBe(false);
    expect(isStoreUnreachable(undefined)).toBe(false);
  });
});
