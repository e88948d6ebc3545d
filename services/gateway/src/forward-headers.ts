import { FORGEABLE_IDENTITY_HEADERS, IDENTITY_HEADER, REQUEST_ID_HEADER } from '@gfts/contracts';
import type { IncomingHttpHeaders } from 'node:http';

// transfer-encoding: the gateway frames what it forwards with a content-length of its own;
// the client's chunked framing next to it is a request the service must refuse.
const DROPPED = new Set<string>([...FORGEABLE_IDENTITY_HEADERS, 'authorization', 'cookie', REQUEST_ID_HEADER, 'transfer-encoding']);

/**
 * Headers sent upstream: whatever identity a caller tried to assert is dropped, the bearer
 * token stays at the edge, and the verified identity travels as the gateway's signed
 * assertion, with the request id that ties the logs of both hops together.
 */
export function forwardHeaders(incoming: IncomingHttpHeaders, identityAssertion: string | undefined, requestId: string): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (!DROPPED.has(name.toLowerCase())) headers[name] = value;
  }
  if (identityAssertion) headers[IDENTITY_HEADER] = identityAssertion;
  headers[REQUEST_ID_HEADER] = requestId;
  return headers;
}
