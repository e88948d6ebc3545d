import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { natsConnectionOptions } from '@gfts/platform';
import { infra } from '@gfts/testkit';
import { connect } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';

/** nats.js's own error classes, as its request code looks them up (lib/errors.js of the copy transport-node uses). */
type ErrorClass = new (message?: string, options?: ErrorOptions) => Error;

function natsErrors(): { RequestError: ErrorClass; TimeoutError: ErrorClass } {
  const fromTransport = createRequire(createRequire(import.meta.url).resolve('@nats-io/transport-node'));
  return fromTransport(join(dirname(fromTransport.resolve('@nats-io/nats-core')), 'errors.js')) as never;
}

describe('NATS requests that succeed', () => {
  const errors = natsErrors();
  const original = { RequestError: errors.RequestError, TimeoutError: errors.TimeoutError };
  afterEach(() => Object.assign(errors, original));

  it('build no error object (each captured a stack: 10 % of the gateway\'s CPU on new gamers\' requests)', async () => {
    let built = 0;
    errors.RequestError = class extends original.RequestError {
      constructor(message?: string, options?: ErrorOptions) {
        super(message, options);
        built++;
      }
    };
    errors.TimeoutError = class extends original.TimeoutError {
      constructor(message?: string, options?: ErrorOptions) {
        super(message, options);
        built++;
      }
    };
    const nc = await connect(natsConnectionOptions(infra().natsUrl, 'nats-requests-test'));
    try {
      const subject = `test.echo.${process.pid}.${Date.now()}`;
      nc.subscribe(subject, { callback: (_error, msg) => {
        msg.respond(msg.data);
      } });
      await nc.flush();
      // connecting builds one (its dial timeout); what counts is the requests'
      built = 0;
      for (let i = 0; i < 50; i++) expect((await nc.request(subject, `ping ${i}`, { timeout: 5_000 })).string()).toBe(`ping ${i}`);
      expect(built).toBe(0);
      // the classes are the ones requests use: a request nobody answers still fails with one
      await expect(nc.request(`${subject}.nobody`, '', { timeout: 200 })).rejects.toThrow();
      expect(built).toBeGreaterThan(0);
    } finally {
      await nc.close();
    }
  });
});
