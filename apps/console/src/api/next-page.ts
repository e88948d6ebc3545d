/**
 * The `after` of the next page a paged list names in its RFC 8288 Link header
 * (`<path?limit=…&after=…>; rel="next"`); undefined on the last page.
 */
export function nextAfter(link: string | null): number | undefined {
  const next = link?.split(',').find((part) => /;\s*rel="?next"?/.test(part));
  const target = next?.match(/<([^>]*)>/)?.[1];
  if (target === undefined) return undefined;
  const after = new URL(target, 'http://x').searchParams.get('after');
  return after !== null && /^\d+$/.test(after) ? Number(after) : undefined;
}
