/**
 * The deepest nesting of objects and arrays a JSON body may have. The services' bodies nest a
 * few levels (a catalog entry's children and their rewards: five); a body nested thousands
 * deep is parsed fine, but code that walks it recursively (the gateway's re-serialization,
 * a service's normalisation, a validator) overflowed the stack: a 500 for a client's input
 * (until 2026-11-28).
 */
export const JSON_NESTING_MAX = 64;

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Whether JSON text nests objects and arrays deeper than `max`, by one pass over its
 * characters (brackets inside strings do not count). Malformed text is left to the parser.
 */
export function nestsDeeperThan(text: string, max: number = JSON_NESTING_MAX): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
}
