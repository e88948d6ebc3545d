import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Static, TSchema } from 'typebox';

// ajv-formats ships CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * A UUID in its plain text form only. ajv-formats' `uuid` also takes `urn:uuid:<uuid>`,
 * which then named no stored gamer (an erasure answered 202 and erased nothing) and would
 * reach field paths built from ids.
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An ajv with the standard formats (uuid, date-time, …), as Fastify's validator has. */
export function createAjv(options: Options = {}): Ajv {
  return addFormats(new Ajv({ allErrors: true, strict: false, ...options })).addFormat('uuid', UUID_PATTERN);
}

const ajv = createAjv();
const cache = new WeakMap<TSchema, ValidateFunction>();
// path parameters and query strings are text: their scalars are coerced, as Fastify's own
// validator of them does (libs/platform http.ts)
const textAjv = createAjv({ coerceTypes: true });
const textCache = new WeakMap<TSchema, ValidateFunction>();

/** Validates a payload that did not come through Fastify (NATS messages, config). */
export function check<T extends TSchema>(schema: T, value: unknown): { ok: true; value: Static<T> } | { ok: false; errors: string[] } {
  return validateWith(ajv, cache, schema, value);
}

/** Validates text values (path parameters) as Fastify does: `"5"` is an integer 5; coerces `value` in place. */
export function checkText<T extends TSchema>(schema: T, value: unknown): { ok: true; value: Static<T> } | { ok: false; errors: string[] } {
  return validateWith(textAjv, textCache, schema, value);
}

function validateWith<T extends TSchema>(compiler: Ajv, compiled: WeakMap<TSchema, ValidateFunction>, schema: T, value: unknown): { ok: true; value: Static<T> } | { ok: false; errors: string[] } {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = compiler.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return { ok: true, value: value as Static<T> };
  return {
    ok: false,
    errors: (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`),
  };
}
