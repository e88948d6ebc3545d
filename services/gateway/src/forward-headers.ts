import { FORGEABLE_IDENTITY_HEADERS, IDENTITY_HEADER, IDENTITY_HEADER_PREFIX, REQUEST_ID_HEADER } from '@gfts/contracts';
import type { IncomingHttpHeaders } from 'node:http';

// transfer-encoding: the gateway frames what it forwards with a content-length of its own;
// the client's chunked framing next to it is a request the service must refuse.
// Trace context: the gateway starts the trace; with tracing on, its own client span's
// traceparent is added on the way out, and a client's must not reach the services.
const TRACE_CONTEXT = ['traceparent', 'tracestate', 'baggage'];
// Hop-by-hop headers (RFC 9110 7.6.1) belong to the client's connection to the gateway, not
// to the gateway's to the service; undici refuses `expect` and `keep-alive` outright, so
// forwarded they made every POST of a client that sends `Expect: 100-continue` (Unity's
// UnityWebRequest, .NET Framework's HttpWebRequest) a 502.
const HOP_BY_HOP = ['connection', 'keep-alive', 'expect', 'te', 'trailer', 'upgrade', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'transfer-encoding'];
const HOP_BY_HOP_NAMES = new Set<string>(HOP_BY_HOP);
// The client's own proxy claims: no service trusts them today, but the first that turned on
// trustProxy, or built a URL from the host, would take values the caller chose (until 2026-11-29
// they were forwarded as sent).
const FORWARDING = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-real-ip'];
const DROPPED = new Set<string>([...FORGEABLE_IDENTITY_HEADERS, 'authorization', 'cookie', REQUEST_ID_HEADER, ...HOP_BY_HOP, ...TRACE_CONTEXT, ...FORWARDING]);

/** The header names a `Connection` header lists: hop-by-hop too (RFC 9110 7.6.1). */
export function connectionOptions(value: string | string[] | undefined): string[] {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return text.split(',').map((name) => name.trim().toLowerCase()).filter((name) => name.length > 0);
}

/**
 * `incoming` without the `dropped` names and the others its `Connection` header lists. On
 * every request and answer: the usual `keep-alive` or `close` lists nothing beyond
 * `dropped`, so no set of listed names is built for it.
 */
function without(incoming: Record<string, string | string[] | undefined>, dropped: ReadonlySet<string>, droppedPrefix?: string): Record<string, string | string[] | undefined> {
  const listed = connectionOptions(incoming.connection).filter((name) => !dropped.has(name));
  const alsoDropped = listed.length > 0 ? new Set(listed) : undefined;
  const headers: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(incoming)) {
    const lower = name.toLowerCase();
    if (!dropped.has(lower) && !alsoDropped?.has(lower) && !(droppedPrefix !== undefined && lower.startsWith(droppedPrefix))) headers[name] = value;
  }
  return headers;
}

/**
 * The service's answer headers as the client gets them: without the service connection's
 * own (its `connection: keep-alive` or `close` would decide the client's connection), and
 * not to be stored unless the service said otherwise: every answer is a gamer's or an
 * admin's own data (friends, dead-letter payloads), which a browser would otherwise keep in
 * its disk cache after sign-out.
 */
export function answerHeaders(incoming: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
  const headers = without(incoming, HOP_BY_HOP_NAMES);
  headers['cache-control'] ??= 'no-store';
  return headers;
}

/**
 * Headers sent upstream: whatever identity a caller tried to assert is dropped, the bearer
 * token stays at the edge, and the verified identity travels as the gateway's signed
 * assertion, with the request id that ties the logs of both hops together.
 */
export function forwardHeaders(incoming: IncomingHttpHeaders, identityAssertion: string | undefined, requestId: string): IncomingHttpHeaders {
  // every x-gfts- header too, not only the assertion's (until 2026-11-28 the listed names only)
  const headers: IncomingHttpHeaders = without(incoming, DROPPED, IDENTITY_HEADER_PREFIX);
  if (identityAssertion) headers[IDENTITY_HEADER] = identityAssertion;
  headers[REQUEST_ID_HEADER] = requestId;
  return headers;
}
