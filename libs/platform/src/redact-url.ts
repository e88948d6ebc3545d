/**
 * Query keys whose values never reach a log line or a span, lower case: `ticket`, a
 * single-use credential of the live channel; `displayname`, the text of a gamer search
 * (personal data that would outlive the gamer's erasure in logs and traces; since 2026-11-29).
 */
const REDACTED_KEYS: ReadonlySet<string> = new Set(['ticket', 'displayname']);
const REDACTED_WORD = /ticket|displayname/i;

/**
 * A URL as logged or traced, with the values of REDACTED_KEYS' keys replaced by `[redacted]`.
 * Keys are matched decoded and in any case, as the query parser reads them (`?%74icket=` is
 * a ticket too); a key that does not decode has its value redacted as well.
 */
export function redactUrl(url: string): string {
  // from the first `?` or `#` on: the router and the query parser read a query past a `#`, and
  // after one that comes first (a fragment has no place in a request, and a client may still
  // send one), so a ticket there authenticates too; until 2026-11-29 it was logged in clear
  const start = url.search(/[?#]/);
  if (start < 0) return url;
  // per request: a query that holds neither an escape nor one of the words is left as it is
  if (!url.includes('%', start) && !REDACTED_WORD.test(url)) return url;
  // A key holds no `?` (the parser's keys can, but no such key is redacted): with one, each `?`
  // began a scan to the URL's end, 0.2 s for `?%` and 16k `?` (a review of 6b37f61). A value
  // runs to the next `&`: the parser keeps a `#` in it, and the ticket's decoder skips it.
  return url.slice(0, start) + url.slice(start).replace(/([?&#])([^=&#?]*)=([^&]*)/g, (pair: string, separator: string, key: string) =>
    mayBeRedactedKey(key) ? `${separator}${key}=[redacted]` : pair,
  );
}

function mayBeRedactedKey(key: string): boolean {
  try {
    return REDACTED_KEYS.has(decodeURIComponent(key.replaceAll('+', ' ')).toLowerCase());
  } catch {
    return true;
  }
}
