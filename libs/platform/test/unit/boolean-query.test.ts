import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { booleanQueryKeys, foldBooleanQuery } from '../../src/boolean-query.ts';
import { createHttpServer } from '../../src/http.ts';

describe('boolean query parameters', () => {
  it('are the schema\'s properties typed boolean, alone or as a choice', () => {
    expect(booleanQueryKeys({ type: 'object', properties: { completed: { type: 'boolean' }, limit: { type: 'integer' } } })).toEqual(['completed']);
    expect(booleanQueryKeys({ type: 'object', properties: { completed: { anyOf: [{ type: 'boolean' }, { const: '' }] } } })).toEqual(['completed']);
    expect(booleanQueryKeys(undefined)).toEqual([]);
  });

  it('fold any case of true/false and 1/0, and leave the rest as sent', () => {
    const query: Record<string, unknown> = { a: 'True', b: 'FALSE', c: '1', d: '0', e: '', f: 'yes', g: ['true', 'false'], other: 'True' };
    foldBooleanQuery(query, ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'absent']);
    expect(query).toEqual({ a: 'true', b: 'false', c: 'true', d: 'false', e: '', f: 'yes', g: ['true', 'false'], other: 'True' });
  });

  describe('on a route of the shared server', () => {
    let app: FastifyInstance;
    beforeAll(async () => {
      app = createHttpServer({ service: 'test', logLevel: 'silent', bodyLimit: 64 });
      const querystring = { type: 'object', properties: { completed: { type: 'boolean' } }, additionalProperties: false };
      app.get('/tasks', { schema: { querystring } }, async (request) => ({ completed: (request.query as { completed?: boolean }).completed ?? 'all' }));
      await app.ready();
    });
    afterAll(async () => {
      await app.close();
    });

    const cases: Array<[string, unknown]> = [['True', true], ['TRUE', true], ['1', true], ['false', false], ['False', false], ['0', false]];
    for (const [sent, read] of cases) {
      it(`?completed=${sent} reads ${String(read)}`, async () => {
        const response = await app.inject({ method: 'GET', url: `/tasks?completed=${sent}` });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({ completed: read });
      });
    }

    it('refuses anything else with the validation problem', async () => {
      for (const url of ['/tasks?completed=yes', '/tasks?completed=', '/tasks?completed=true&completed=false']) {
        const response = await app.inject({ method: 'GET', url });
        expect(response.statusCode, url).toBe(400);
        expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
      }
    });
  });
});
