/** The season end as the form's datetime-local input holds it: UTC, to the second. */
export function seasonInput(endsAt: string): string {
  return endsAt.slice(0, 19);
}

export type SeasonEndChange = { kind: 'unchanged' } | { kind: 'set'; endsAt: string };

/**
 * What saving the season form sends. Nothing when the input names the second the season
 * already ends in: an input holds no milliseconds, so an end at `…23:59:59.999Z` shows as
 * `…23:59:59`, and saving it unchanged must neither move it nor make it the admin's. Else
 * the input as a UTC time; a text that is no time goes as it is, for the API to name.
 */
export function seasonEndChange(current: string | null, input: string): SeasonEndChange {
  const at = Date.parse(`${input}Z`);
  if (Number.isNaN(at)) return { kind: 'set', endsAt: input };
  if (current !== null && Math.floor(Date.parse(current) / 1000) * 1000 === at) return { kind: 'unchanged' };
  return { kind: 'set', endsAt: new Date(at).toISOString() };
}
