import { TASK_FAMILIES, type TaskFamily } from '@gfts/contracts';

const FAMILIES = new Set<string>(TASK_FAMILIES);

/** Requests may write a family in any casing ("DAILY", "Daily"); the service keeps lower case. */
export function normaliseFamily(value: unknown): unknown {
  return typeof value === 'string' ? value.trim().toLowerCase() : value;
}

export function isTaskFamily(value: unknown): value is TaskFamily {
  return typeof value === 'string' && FAMILIES.has(value);
}

/**
 * Lower-cases `family` in a request body and in each of its `children`, in place, so the
 * schema's lower-case enum accepts any casing. Anything that is not an object is left for
 * the schema to refuse; so are children's children (a child has none), whatever their depth:
 * until 2026-11-28 this went down every level, before the schema looked, and a body nested
 * some thousands deep overflowed the stack (500 instead of 400).
 */
export function normaliseFamilies(body: unknown, levels = 2): void {
  if (levels === 0 || !body || typeof body !== 'object' || Array.isArray(body)) return;
  const record = body as Record<string, unknown>;
  if ('family' in record) record.family = normaliseFamily(record.family);
  if (Array.isArray(record.children)) for (const child of record.children) normaliseFamilies(child, levels - 1);
}
