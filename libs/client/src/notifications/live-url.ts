// Where the live channel is: the gateway's base URL with the scheme a WebSocket needs.

export const LIVE_PATH = '/api/v1/notifications/live';
export const TICKET_PATH = '/api/v1/notifications/ticket';

/**
 * `ws(s)://host/api/v1/notifications/live[?since=<id>][&ticket=<t>]` from the gateway's
 * `http(s)://` (or `ws(s)://`) base URL; a path prefix of the base URL is kept.
 */
export function liveUrl(baseUrl: string | URL, query: { since?: string | undefined; ticket?: string | undefined } = {}): string {
  const url = new URL(baseUrl);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  else if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new TypeError(`baseUrl must be http(s) or ws(s), not ${url.protocol}`);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${LIVE_PATH}`;
  url.search = '';
  url.hash = '';
  if (query.since !== undefined) url.searchParams.set('since', query.since);
  if (query.ticket !== undefined) url.searchParams.set('ticket', query.ticket);
  return url.toString();
}
