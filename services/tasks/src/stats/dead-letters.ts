import { DEAD_LETTER_ERRORS_MAX, STAT_DEAD_LETTER_MAX_BYTES, type DeadLetter, type NatsNames, type StatDeadLetter } from '@gfts/contracts';
import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient, type JetStreamManager, type PubAck, type StoredMsg } from '@nats-io/jetstream';
import { requestHeaders, validRequestId } from '@gfts/platform';
import { subjectApplication } from './parse.ts';

const text = new TextDecoder();

/** Where a stat event that came on `statsSubject` is dead-lettered: its application's subject. */
export function deadLetterSubject(names: NatsNames, statsSubject: string): string {
  return names.statsDeadLetterOf(subjectApplication(statsSubject));
}

/** A letter's `requestId` when the event came with one: the key to its log lines. */
export function requestIdField(requestId: string | undefined): { requestId?: string } {
  return requestId === undefined ? {} : { requestId };
}

/** Room a letter leaves in the stream's max_msg_size for its headers (the message id). */
const LETTER_HEADER_ALLOWANCE = 1024;

const letterBytes = (letter: StatDeadLetter) => Buffer.byteLength(JSON.stringify(letter), 'utf8');

/**
 * The letter, made to fit the dead-letter stream's max_msg_size: at most
 * DEAD_LETTER_ERRORS_MAX validation errors (the rest counted), and the payload cut, with the
 * reason saying so, when escaping makes it too large (only a payload that is not JSON: its
 * control bytes take 6 bytes each, its invalid UTF-8 3). A letter JetStream refused would
 * keep its event redelivered until the deliveries run out, and then be lost.
 */
export function fitLetter(letter: StatDeadLetter, maxBytes = STAT_DEAD_LETTER_MAX_BYTES - LETTER_HEADER_ALLOWANCE): StatDeadLetter {
  const errors = letter.errors;
  let fitted: StatDeadLetter = errors && errors.length > DEAD_LETTER_ERRORS_MAX
    ? { ...letter, errors: [...errors.slice(0, DEAD_LETTER_ERRORS_MAX), `and ${errors.length - DEAD_LETTER_ERRORS_MAX} more`] }
    : letter;
  const whole = letter.payload.length;
  // a few rounds at most: each keeps the share of the payload that fits the bytes left
  for (let size = letterBytes(fitted); size > maxBytes && fitted.payload.length > 0; size = letterBytes(fitted)) {
    const payloadBytes = Buffer.byteLength(JSON.stringify(fitted.payload), 'utf8');
    const room = maxBytes - (size - payloadBytes) - 256; // the reason grows by the note below
    const kept = Math.max(0, Math.floor(fitted.payload.length * Math.max(0, room) / payloadBytes) - 1);
    fitted = { ...fitted, payload: letter.payload.slice(0, kept), reason: `${letter.reason} (payload cut to its first ${kept} of ${whole} characters to fit a letter)` };
  }
  return fitted;
}

/**
 * Stores a letter (fitted, fitLetter) on its application's subject. While a rollout runs, a replica of before
 * 2026-11-27 may set the stream back to the one shared subject: a letter then goes there,
 * where it is read too (the publish is refused as having no stream, so nothing is stored twice).
 */
export async function publishDeadLetter(js: JetStreamClient, names: NatsNames, whole: StatDeadLetter, msgID: string): Promise<DeadLetterStored> {
  const letter = fitLetter(whole);
  let ack: PubAck;
  try {
    ack = await js.publish(deadLetterSubject(names, letter.subject), JSON.stringify(letter), { msgID });
  } catch (error) {
    // no stream takes the subject: nats.js reports the no-responders answer as JetStream not
    // enabled (a class its package does not export)
    if ((error as Error).name !== 'JetStreamNotEnabled') throw error;
    ack = await js.publish(names.statsDeadLetter, JSON.stringify(letter), { msgID });
  }
  return ack.duplicate ? 'repeat' : 'stored';
}

/**
 * `repeat`: a letter of the same event was stored within the duplicate window (its event's
 * termination was lost, or the advisory's copy followed a letter that was written).
 */
export type DeadLetterStored = 'stored' | 'repeat';

/** The ids anywhere in a text (a letter's gamerId in whatever form it came). */
const ALL_IDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** nats-server's JSSequenceNotFoundErrF ("sequence N not found"). */
const SEQUENCE_NOT_FOUND = 10043;
/** nats-server's JSStreamMsgDeleteFailedF: any failed delete, the message's absence among them. */
const STREAM_MSG_DELETE_FAILED = 10057;

/**
 * JetStream's answers to deleting a message that is not there (anymore), as nats-server
 * itself reads them; which one comes depends on where the message sat in the stream
 * (dead-letter-erasure.test.ts meets both): "sequence N not found", the generic delete
 * failure naming the store's "no message found", or that error's own code.
 */
function isGoneAlready(error: unknown): boolean {
  if (!(error instanceof JetStreamApiError)) return false;
  return error.code === SEQUENCE_NOT_FOUND
    || error.code === JetStreamApiCodes.NoMessageFound
    || (error.code === STREAM_MSG_DELETE_FAILED && /no message found/i.test(error.message));
}

/**
 * Which letters to count as dead-lettered (`gfts_stats_dead_letter_total`): a stored one
 * always; a repeat (the stream already held it) unless this replica counted that letter
 * itself. So a letter whose first publish lost its answer (stored unseen) counts at its
 * repeat, on whichever replica that comes; it is missed only if no repeat comes at all (its
 * event's MAX_DELIVERIES advisory lost or not copied). A letter counts twice when its repeat
 * comes after this replica forgot it: on another replica, after a restart, or after `max`
 * later letters. Until 2026-11-28 every publish counted, repeats on the same replica too.
 */
export class LetterCount {
  private readonly counted = new Set<string>();
  private readonly max: number;

  constructor(max = 1_000) {
    this.max = max;
  }

  /** Whether this answer to the letter's publish (its message id) counts one more letter. */
  counts(msgID: string, stored: DeadLetterStored): boolean {
    if (stored === 'repeat' && this.counted.has(msgID)) return false;
    this.counted.add(msgID);
    if (this.counted.size > this.max) this.counted.delete(this.counted.values().next().value!);
    return true;
  }
}

/** A field of a JSON payload when it is a string; the payload of a poison event may be anything. */
function payloadField(payload: string, field: 'eventId' | 'gamerId'): string | null {
  try {
    const value = (JSON.parse(payload) as Record<string, unknown> | null)?.[field];
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

/** The stored letter as the API shows it; undefined for a message that is not a letter. */
export function toDeadLetter(sequence: number, data: Uint8Array): DeadLetter | undefined {
  let letter: StatDeadLetter;
  try {
    letter = JSON.parse(text.decode(data)) as StatDeadLetter;
  } catch {
    return undefined;
  }
  if (typeof letter?.subject !== 'string' || typeof letter.payload !== 'string') return undefined;
  return {
    sequence,
    reason: String(letter.reason ?? ''),
    errors: Array.isArray(letter.errors) ? letter.errors.map(String) : [],
    subject: letter.subject,
    streamSequence: Number(letter.streamSequence) || 0,
    deliveryCount: Number(letter.deliveryCount) || 0,
    deadLetteredAt: String(letter.deadLetteredAt ?? ''),
    eventId: payloadField(letter.payload, 'eventId'),
    gamerId: payloadField(letter.payload, 'gamerId'),
    payload: letter.payload,
    // stored by the consumer from a checked header; checked again, as anything read back is
    requestId: validRequestId(letter.requestId) ?? null,
  };
}

/** How long a replay waits for JetStream's ack: under the admin routes' 2 s bound, with room for the delete after it. */
const REPLAY_PUBLISH_TIMEOUT_MS = 1_500;

export type ReplayOutcome =
  | { kind: 'replayed'; letter: DeadLetter; stream: string; seq: number; duplicate: boolean }
  | { kind: 'notFound' };

/**
 * The stats dead-letter stream (`<PREFIX>_STATS_DLQ`), seen per application: a letter
 * belongs to the application whose stats subject its event came on, and one of another
 * application is as absent as an unknown sequence. Each application's letters are on their
 * own subject and read from it in order (JetStream's next message on a subject from a
 * sequence), so one application's letters, however many, cost nothing to another's reads.
 * Letters written before 2026-11-27 share one subject; they are read too, filtered, until
 * they expire with the stream's max age.
 */
export class DeadLetterStore {
  private readonly jsm: JetStreamManager;
  private readonly js: JetStreamClient;
  private readonly names: NatsNames;

  constructor(jsm: JetStreamManager, js: JetStreamClient, names: NatsNames) {
    this.jsm = jsm;
    this.js = js;
    this.names = names;
  }

  private ofApplication(applicationId: string, letter: DeadLetter | undefined): letter is DeadLetter {
    if (letter === undefined) return false;
    // the consumer took the event's subject with the id in any case (subjectApplication)
    const dot = letter.subject.lastIndexOf('.');
    return `${letter.subject.slice(0, dot)}.${subjectApplication(letter.subject)}` === this.names.statsSubject(applicationId);
  }

  /** The message at `seq`; null when there is none (deleted, or past the end). */
  private read(seq: number): Promise<StoredMsg | null> {
    return this.jsm.streams.getMessage(this.names.statsDeadLetterStream, { seq });
  }

  /** How many letters the stream holds on `subject`. */
  private async countOn(subject: string): Promise<number> {
    const info = await this.jsm.streams.info(this.names.statsDeadLetterStream, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  }

  /** The application's letters on `subject` from sequence `from` on, in order, one read each. */
  private async *lettersOn(applicationId: string, subject: string, from: number): AsyncGenerator<DeadLetter> {
    for (let seq = from; ; ) {
      // the server's next_by_subj (nats.js types only the seq and last_by_subj forms)
      const stored = await this.jsm.streams.getMessage(this.names.statsDeadLetterStream, { seq, next_by_subj: subject } as never);
      if (!stored) return;
      const letter = toDeadLetter(stored.seq, stored.data);
      if (this.ofApplication(applicationId, letter)) yield letter;
      seq = stored.seq + 1;
    }
  }

  /** The application's letters after sequence `after`, oldest first, at most `limit`; `more` when others follow. */
  async list(applicationId: string, after: number, limit: number): Promise<{ letters: DeadLetter[]; more: boolean }> {
    // the shared subject of before is read only while it holds letters (it empties with the max age)
    const subjects = [this.names.statsDeadLetterOf(applicationId), ...((await this.countOn(this.names.statsDeadLetter)) > 0 ? [this.names.statsDeadLetter] : [])];
    const sources = subjects.map((subject) => this.lettersOn(applicationId, subject, after + 1));
    const heads = await Promise.all(sources.map((source) => source.next()));
    const letters: DeadLetter[] = [];
    // merged by sequence: the two subjects' letters interleave only around an upgrade
    while (letters.length <= limit) {
      let pick = -1;
      heads.forEach((head, i) => {
        if (!head.done && (pick < 0 || head.value.sequence < (heads[pick]!.value as DeadLetter).sequence)) pick = i;
      });
      if (pick < 0) break;
      letters.push(heads[pick]!.value as DeadLetter);
      heads[pick] = await sources[pick]!.next();
    }
    await Promise.all(sources.map((source) => source.return(undefined)));
    return { letters: letters.slice(0, limit), more: letters.length > limit };
  }

  /** How many letters the application has: its subject's count from the stream, plus any of before 2026-11-27. */
  async count(applicationId: string): Promise<number> {
    const [own, shared] = await Promise.all([this.countOn(this.names.statsDeadLetterOf(applicationId)), this.countOn(this.names.statsDeadLetter)]);
    let count = own;
    if (shared > 0) for await (const _ of this.lettersOn(applicationId, this.names.statsDeadLetter, 1)) count++;
    return count;
  }

  async get(applicationId: string, sequence: number): Promise<DeadLetter | undefined> {
    const stored = await this.read(sequence);
    const letter = stored ? toDeadLetter(stored.seq, stored.data) : undefined;
    return this.ofApplication(applicationId, letter) ? letter : undefined;
  }

  /**
   * Deletes the gamer's letters (a gamer's erasure): those whose event names the gamer, on
   * the application's subject and the shared one of before; how many went. A letter keeps
   * the event whole (the gamer's id and stats) for the stream's max age, and its replay
   * would apply the event again: until 2026-11-28 both outlived the erasure.
   */
  async removeOfGamer(applicationId: string, gamerId: string): Promise<number> {
    const subjects = [this.names.statsDeadLetterOf(applicationId), ...((await this.countOn(this.names.statsDeadLetter)) > 0 ? [this.names.statsDeadLetter] : [])];
    let removed = 0;
    for (const subject of subjects) {
      for await (const letter of this.lettersOn(applicationId, subject, 1)) {
        // hers when the id in its gamerId is hers, in whatever form (`urn:uuid:<id>`, braces:
        // letters are events that failed validation; until 2026-11-29 such a gamerId was
        // matched whole and the letter kept); when it has no gamerId naming an id (not JSON,
        // cut short), when the payload names her anywhere. Another gamer's letter that
        // mentions her stays his.
        // (every id in it but the application's: `urn:app:<app>:gamer:<id>` names the gamer too;
        // one naming only the application's id names a gamer of that id)
        const ids = [...(letter.gamerId ?? '').matchAll(ALL_IDS)].map((m) => m[0].toLowerCase());
        const others = ids.filter((id) => id !== applicationId.toLowerCase());
        const named = others.length > 0 ? others : ids;
        const hers = named.length > 0 ? named.includes(gamerId) : letter.payload.toLowerCase().includes(gamerId);
        if (!hers) continue;
        // erased, not only deleted: the stream overwrites the message's bytes (until 2026-11-28
        // they stayed in its files until compaction or the max age); gone already (a replay or
        // delete in between) counts as gone. Any other failure (a timeout, a leader election)
        // fails the erasure, which is tried again: until 2026-11-29 it counted as gone too, and
        // the job completed with the letter kept.
        const deleted = await this.jsm.streams.deleteMessage(this.names.statsDeadLetterStream, letter.sequence, true).catch((error: unknown) => {
          if (isGoneAlready(error)) return true;
          throw error;
        });
        if (deleted) removed++;
      }
    }
    return removed;
  }

  /** Deletes a letter of the application; false when there is none (anymore). */
  async remove(applicationId: string, sequence: number): Promise<boolean> {
    if (!(await this.get(applicationId, sequence))) return false;
    try {
      return await this.jsm.streams.deleteMessage(this.names.statsDeadLetterStream, sequence, false);
    } catch (error) {
      // deleted in between (a concurrent replay or delete); another failure is the stream's
      // (a 503 for the route), not a letter that is not there
      if (isGoneAlready(error)) return false;
      throw error;
    }
  }

  /**
   * Publishes the letter's event again, byte for byte, on the subject it first came on,
   * then deletes the letter. The event keeps its eventId, so the consumer applies it at
   * most once whatever happened before; the message id names the letter, so two replays of
   * one letter within the duplicate window are stored once.
   */
  async replay(applicationId: string, sequence: number): Promise<ReplayOutcome> {
    const letter = await this.get(applicationId, sequence);
    if (!letter) return { kind: 'notFound' };
    // within the route's 2 s bound (until 2026-11-28 5 s: an ack that came between 2 and 5 s
    // replayed and deleted the letter of a call answered 503 "try again")
    // with the request id it first came with, so its log lines before and after share one key;
    // a letter without one goes without, and the consumer names it by its eventId as it did
    const headers = letter.requestId === null ? undefined : requestHeaders(letter.requestId);
    const ack = await this.js.publish(letter.subject, letter.payload, { msgID: `replay-${this.names.statsDeadLetterStream}-${sequence}`, timeout: REPLAY_PUBLISH_TIMEOUT_MS, ...(headers ? { headers } : {}) });
    await this.jsm.streams.deleteMessage(this.names.statsDeadLetterStream, sequence, false).catch(() => false);
    return { kind: 'replayed', letter, stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
  }
}
