import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createHttpServer } from '../../src/http.ts';

/** What the shared server answers before any handler runs: methods, media types, bodies. */
describe('createHttpServer at the edge', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = createHttpServer({ service: 'test', logLevel: 'silent', bodyLimit: 64 });
    const body = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false };
    app.get('/things', async () => []);
    app.post('/things', { schema: { body } }, async () => ({ ok: true }));
    const list = { type: 'object', properties: { items: { type: 'array', maxItems: 3, items: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'string' }, b: { type: 'string' } } } } }, additionalProperties: false };
    app.post('/lists', { bodyLimit: 16_384, schema: { body: list } }, async () => ({ ok: true }));
    app.get('/things/blocked', async () => []);
    app.delete('/things/:id', async () => ({ ok: true }));
    const uuidParams = { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] };
    app.get('/items/recent', async () => []);
    app.delete('/items/:id', { schema: { params: uuidParams } }, async () => ({ ok: true }));
    // an integer parameter, as the dead letters' sequence
    const sequenceParams = { type: 'object', properties: { sequence: { type: 'integer', minimum: 1 } }, required: ['sequence'] };
    app.delete('/letters/:sequence', { schema: { params: sequenceParams } }, async () => ({ ok: true }));
    // what a plugin throws: a plain error with a status and no code of ours
    app.get('/raised/:status', async (request) => {
      throw Object.assign(new Error('raised by a plugin'), { statusCode: Number((request.params as { status: string }).status) });
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  describe('a known path asked with a method it does not take is a 405 with Allow', () => {
    const cases: Array<[string, string, string]> = [
      ['PUT', '/things', 'GET, HEAD, POST'],
      ['PATCH', '/things?limit=2', 'GET, HEAD, POST'],
      // the parameter route takes DELETE here, as it would route it
      ['PUT', '/things/blocked', 'DELETE, GET, HEAD'],
      ['POST', '/things/42', 'DELETE'],
      ['POST', '/metrics', 'GET, HEAD'],
      // a parameter route whose params schema the path does not satisfy is not advertised
      ['PUT', '/items/recent', 'GET, HEAD'],
      ['POST', '/items/0190a5d2-0000-7000-8000-000000000000', 'DELETE'],
      // an integer parameter is text in the path, read as Fastify reads it (until 2026-11-29 a 404)
      ['GET', '/letters/5', 'DELETE'],
      // answered before the body is looked at: Fastify would refuse a QUERY without Content-Type with 400
      ['QUERY', '/things', 'GET, HEAD, POST'],
      ['TRACE', '/things', 'GET, HEAD, POST'],
      // a trailing slash names the same path
      ['PUT', '/things/', 'GET, HEAD, POST'],
    ];
    for (const [method, url, allow] of cases) {
      it(`${method} ${url}`, async () => {
        const response = await app.inject({ method: method as 'PUT', url });
        expect(response.statusCode).toBe(405);
        expect(response.headers['allow']).toBe(allow);
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(response.json()).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED', title: 'Method Not Allowed' });
      });
    }
  });

  it('routes a path with a trailing slash as the path without it (the spec\'s `POST /` under a base path)', async () => {
    expect((await app.inject({ method: 'GET', url: '/things/' })).statusCode).toBe(200);
    const posted = await app.inject({ method: 'POST', url: '/things/?x=1', payload: { name: 'a' } });
    expect(posted.statusCode).toBe(200);
    expect(posted.json()).toEqual({ ok: true });
  });

  describe('a 4xx raised without one of our codes gets its status\'s code', () => {
    const cases: Array<[number, string]> = [
      [401, 'UNAUTHORIZED'], [403, 'FORBIDDEN'], [404, 'NOT_FOUND'], [409, 'CONFLICT'], [426, 'UPGRADE_REQUIRED'], [429, 'RATE_LIMITED'],
      // no code of its own: the request, as it is, is refused
      [400, 'VALIDATION_FAILED'], [406, 'VALIDATION_FAILED'], [422, 'VALIDATION_FAILED'],
    ];
    for (const [status, code] of cases) {
      it(`${status} → ${code}`, async () => {
        const res = await app.inject({ method: 'GET', url: `/raised/${status}` });
        expect(res.statusCode).toBe(status);
        expect(res.json()).toMatchObject({ status, code, detail: 'raised by a plugin' });
      });
    }
  });

  it('keeps 404 for a path no method takes', async () => {
    const response = await app.inject({ method: 'GET', url: '/nothing/here' });
    expect(response.statusCode).toBe(404);
    expect(response.headers['allow']).toBeUndefined();
    expect(response.json()).toMatchObject({ status: 404, code: 'NOT_FOUND', detail: 'no route GET /nothing/here' });
  });

  it('names a long path in its 404 by its first 200 characters only', async () => {
    const long = `/${'x'.repeat(10_000)}`;
    const response = await app.inject({ method: 'GET', url: long });
    expect(response.statusCode).toBe(404);
    expect(response.json<{ detail: string }>().detail).toBe(`no route GET ${long.slice(0, 200)}…`);
  });

  describe('a JSON body that is not the object the route takes is a 400 problem', () => {
    for (const raw of ['null', 'false', '0', '""', '[]', '{"name":', '']) {
      it(JSON.stringify(raw), async () => {
        const response = await app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: raw });
        expect(response.statusCode).toBe(400);
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(response.json()).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      });
    }
  });

  it('does not coerce body values: a schema-violating type is a 400', async () => {
    for (const name of [false, 5, null]) {
      const response = await app.inject({ method: 'POST', url: '/things', payload: { name } });
      expect(response.statusCode, JSON.stringify(name)).toBe(400);
    }
  });

  it('answers 413 over the body limit', async () => {
    const response = await app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'x'.repeat(100) }) });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE', detail: "the body is over this route's limit of 64 bytes" });
  });

  it('lists at most 20 validation failures, and counts the rest in the detail: a small body cannot make a large answer', async () => {
    // 16 KiB of empty objects: each fails twice, ~5,400 failures in all
    const payload = `{"items":[${Array.from({ length: 5_400 }, () => '{}').join(',')}]}`;
    const response = await app.inject({ method: 'POST', url: '/lists', headers: { 'content-type': 'application/json' }, payload });
    expect(response.statusCode).toBe(400);
    const body = response.json<{ detail: string; errors: { path: string; message: string }[] }>();
    expect(body.errors).toHaveLength(20);
    expect(body.errors[0]).toEqual({ path: 'body/items', message: 'must NOT have more than 3 items' });
    expect(body.detail).toMatch(/^invalid body: 10801 failures, the first 20 listed$/);
    expect(response.payload.length).toBeLessThan(4_000);
  });

  it('keeps the whole list and the plain detail when there are few failures', async () => {
    const response = await app.inject({ method: 'POST', url: '/lists', payload: { items: [{}] } });
    expect(response.statusCode).toBe(400);
    const body = response.json<{ detail: string; errors: { path: string; message: string }[] }>();
    expect(body.detail).toBe('invalid body');
    expect(body.errors.map((e) => e.message)).toEqual(["must have required property 'a'", "must have required property 'b'"]);
  });

  it('names an unknown body property in errors[] (path and message)', async () => {
    const response = await app.inject({ method: 'POST', url: '/things', payload: { name: 'a', nmae: 'b' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: expect.arrayContaining([{ path: 'body/nmae', message: 'must NOT have additional property "nmae"' }]),
    });
  });

  it('takes a JSON body in UTF-8 only: bytes that are not are a 400, as the NATS path refuses them', async () => {
    const broken = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const refused = await app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: broken });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', detail: 'the body is not UTF-8' });
    const accepted = await app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json; charset=utf-8' }, payload: Buffer.from('{"name":"Zoë 😀"}') });
    expect(accepted.statusCode).toBe(200);
    // Fastify's own checks still run on the text
    const poisoned = await app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: '{"name":"a","__proto__":{"x":1}}' });
    expect(poisoned.statusCode).toBe(400);
    const malformed = await app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: '{"name":' });
    expect(malformed.json()).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
  });

  describe('takes JSON only: other media types are a 415', () => {
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      it(type, async () => {
        const response = await app.inject({ method: 'POST', url: '/things', headers: { 'content-type': type }, payload: 'name=x' });
        expect(response.statusCode).toBe(415);
        expect(response.json()).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
      });
    }
  });

  describe('a path the router cannot read is a 400 problem, not Fastify\'s own JSON', () => {
    const cases: Array<[string, string]> = [
      ['/things/%zz', 'the path is not a valid URL (bad percent-encoding)'],
      [`/things/${'x'.repeat(101)}`, 'a path parameter is too long'],
    ];
    for (const [url, detail] of cases) {
      it(url.slice(0, 20), async () => {
        const response = await app.inject({ method: 'DELETE', url });
        expect(response.statusCode).toBe(400);
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(response.json()).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', detail, requestId: expect.any(String) });
      });
    }
  });
});
