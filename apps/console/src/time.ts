/**
 * Times as the console shows them: in UTC, as the API gives them, and labelled "UTC" so
 * nobody reads them as their local time. A text that is no time is shown as it is.
 */
export function utcDateTime(at: string | number): string {
  const time = new Date(at);
  if (Number.isNaN(time.getTime())) return String(at);
  return `${time.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** The time of day alone (a chart's axis over the last hours), in UTC, labelled. */
export function utcTimeOfDay(at: string | number): string {
  const time = new Date(at);
  if (Number.isNaN(time.getTime())) return String(at);
  return `${time.toISOString().slice(11, 19)} UTC`;
}
