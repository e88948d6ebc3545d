import type { DeadLetter, NatsNames, StatDeadLetter } from '@gfts/contracts';
import type { JetStreamClient, JetStreamManager, StoredMsg } from '@nats-io/jetstream';

const text = new TextDecoder();

/** Reads of the dead-letter stream go this many messages at a time. */
const READ_CONCURRENCY = 32;

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
  };
}

export type ReplayOutcome =
  | { kind: 'replayed'; letter: DeadLetter; stream: string; seq: number; duplicate: boolean }
  | { kind: 'notFound' };

/**
 * The stats dead-letter stream (`<PREFIX>_STATS_DLQ`), seen per application: a letter
 * belongs to the application whose stats subject its event came on, and one of another
 * application is as absent as an unknown sequence. Letters are read by sequence (the
 * stream keeps few: each is a game result an operator must look at).
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
    return letter?.subject === this.names.statsSubject(applicationId);
  }

  private async read(seq: number): Promise<StoredMsg | null> {
    try {
      return await this.jsm.streams.getMessage(this.names.statsDeadLetterStream, { seq });
    } catch {
      // a deleted sequence answers "no message found"
      return null;
    }
  }

  /** The application's letters after sequence `after`, oldest first, at most `limit`; `more` when others follow. */
  async list(applicationId: string, after: number, limit: number): Promise<{ letters: DeadLetter[]; more: boolean }> {
    const { state } = await this.jsm.streams.info(this.names.statsDeadLetterStream);
    const letters: DeadLetter[] = [];
    let seq = Math.max(after + 1, state.first_seq);
    while (seq <= state.last_seq && letters.length <= limit) {
      const upTo = Math.min(state.last_seq, seq + READ_CONCURRENCY - 1);
      const batch = await Promise.all(Array.from({ length: upTo - seq + 1 }, (_, i) => this.read(seq + i)));
      for (const stored of batch) {
        if (!stored) continue;
        const letter = toDeadLetter(stored.seq, stored.data);
        if (this.ofApplication(applicationId, letter)) letters.push(letter);
      }
      seq = upTo + 1;
    }
    return { letters: letters.slice(0, limit), more: letters.length > limit };
  }

  /** Every letter of the application (the health count, replay all). */
  async all(applicationId: string): Promise<DeadLetter[]> {
    return (await this.list(applicationId, 0, Number.MAX_SAFE_INTEGER - 1)).letters;
  }

  async get(applicationId: string, sequence: number): Promise<DeadLetter | undefined> {
    const stored = await this.read(sequence);
    const letter = stored ? toDeadLetter(stored.seq, stored.data) : undefined;
    return this.ofApplication(applicationId, letter) ? letter : undefined;
  }

  /** Deletes a letter of the application; false when there is none (anymore). */
  async remove(applicationId: string, sequence: number): Promise<boolean> {
    if (!(await this.get(applicationId, sequence))) return false;
    try {
      return await this.jsm.streams.deleteMessage(this.names.statsDeadLetterStream, sequence, false);
    } catch {
      // deleted in between (a concurrent replay or delete)
      return false;
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
    const ack = await this.js.publish(letter.subject, letter.payload, { msgID: `replay-${this.names.statsDeadLetterStream}-${sequence}`, timeout: 5_000 });
    await this.jsm.streams.deleteMessage(this.names.statsDeadLetterStream, sequence, false).catch(() => false);
    return { kind: 'replayed', letter, stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
  }
}
