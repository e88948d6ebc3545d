/**
 * Driver errors that mean the store could not be reached or could not serve now (its
 * connection reset or timed out, no server to select, the client closed, the primary
 * stepping down or shutting down): the same request may succeed once it is back. By name,
 * so that a second copy of the driver in the tree is read the same way.
 */
const UNREACHABLE_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'MongoOperationTimeoutError',
]);

/** Server error codes of a primary that is stepping down, shutting down or not (yet) writable. */
const UNAVAILABLE_CODES = new Set([91, 189, 10107, 11600, 11602, 13435, 13436]);

/** The store was away or not serving (see UNREACHABLE_NAMES), not a fault of the request or of the code. */
export function isStoreUnreachable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    if (UNREACHABLE_NAMES.has(e.name)) return true;
    const code = (e as { code?: unknown }).code;
    if (e.name === 'MongoServerError' && typeof code === 'number' && UNAVAILABLE_CODES.has(code)) return true;
  }
  return false;
}
