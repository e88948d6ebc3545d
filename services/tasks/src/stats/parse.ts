import { check, StatEvent } from '@gfts/contracts';
import { normaliseEvent } from '../domain/stat-event.ts';

export type Parsed = { ok: true; event: StatEvent } | { ok: false; reason: string; errors?: string[] };

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * A stat message as the consumer receives it: UTF-8 JSON matching the StatEvent schema,
 * on the subject of its own application (`<prefix>.stats.<applicationId>`). Anything else
 * is poison: it will never process, so it goes to the dead-letter subject at once.
 */
/** The application a stats subject (`<prefix>.stats.<applicationId>`) names: its last token, lower case. */
export function subjectApplication(subject: string): string {
  return subject.slice(subject.lastIndexOf('.') + 1).toLowerCase();
}

export function parseStatMessage(subject: string, data: Uint8Array): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(data));
  } catch {
    return { ok: false, reason: 'payload is not UTF-8 JSON' };
  }
  const result = check(StatEvent, value);
  if (!result.ok) return { ok: false, reason: 'payload does not match the StatEvent schema', errors: result.errors };
  const event = normaliseEvent(result.value);
  if (subjectApplication(subject) !== event.applicationId) {
    return { ok: false, reason: `subject ${subject} is not the event's application (${event.applicationId})` };
  }
  return { ok: true, event };
}

/** Redelivery delay after a failed attempt: doubling from `baseMs`, at most 30 s. */
export function retryDelay(deliveryCount: number, baseMs: number): number {
  return Math.min(30_000, baseMs * 2 ** Math.max(0, deliveryCount - 1));
}

/**
 * How long ago JetStream stored a message, in seconds, by this process's clock: never
 * negative (a server clock ahead of the pod's reads as 0, not as time travel).
 */
export function eventAgeSeconds(storedAtNanos: number, nowMs: number): number {
  return Math.max(0, nowMs - storedAtNanos / 1e6) / 1000;
}
