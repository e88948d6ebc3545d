import type { NatsNames } from '@gfts/contracts';
import type { JetStreamManager, StreamInfo } from '@nats-io/jetstream';
import { Gauge, type Registry } from 'prom-client';
import { LastKnown } from './last-known.ts';

/** A scrape must not wait on a slow NATS: past this a gauge keeps its last value (last-known.ts). */
const INFO_TIMEOUT_MS = 1_000;
/** The gauges of one scrape share one info call per stream. */
const INFO_REUSE_MS = 1_000;

/**
 * The file streams the tasks service ensures, by a label that does not change with
 * NATS_PREFIX: the stats stream, its dead letters, and GAMERS (every erasing service
 * ensures it; this one reports it).
 */
function ensuredStreams(names: NatsNames): Record<string, string> {
  return { stats: names.statsStream, stats_dead_letter: names.statsDeadLetterStream, gamers: names.gamersStream };
}

function infoWithin(jsm: JetStreamManager, stream: string): Promise<StreamInfo> {
  return Promise.race([
    jsm.streams.info(stream),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), INFO_TIMEOUT_MS).unref()),
  ]);
}

/**
 * How full each stream is against its max_bytes, and how old its oldest message is (how far
 * back it still reaches: the replay window after a restore, docs/operations.md), for the
 * alerts on a stream near its bound (deploy/helm/gfts/files/prometheus-rules.yaml).
 */
export function streamMetrics(registry: Registry, jsm: JetStreamManager, names: NatsNames): void {
  const streams = Object.entries(ensuredStreams(names));
  let read: { at: number; infos: Promise<PromiseSettledResult<StreamInfo>[]> } | undefined;
  const infos = () => {
    if (!read || Date.now() - read.at > INFO_REUSE_MS) read = { at: Date.now(), infos: Promise.allSettled(streams.map(([, name]) => infoWithin(jsm, name))) };
    return read.infos;
  };
  const gauge = (name: string, help: string, value: (info: StreamInfo) => number) => {
    const known = streams.map(() => new LastKnown());
    return new Gauge({
      name,
      help,
      labelNames: ['stream'],
      registers: [registry],
      async collect() {
        const settled = await infos();
        settled.forEach((result, i) => {
          // a failed read leaves the last value for a minute, then NaN
          if (result.status === 'fulfilled') known[i]!.read(value(result.value));
          this.set({ stream: streams[i]![0] }, known[i]!.now());
        });
      },
    });
  };
  gauge('gfts_jetstream_stream_bytes', 'bytes a JetStream stream the tasks service ensures holds (per server)', (info) => info.state.bytes);
  gauge('gfts_jetstream_stream_max_bytes', 'the stream\'s max_bytes (STATS_STREAM_MAX_BYTES, STATS_DEAD_LETTER_STREAM_MAX_BYTES, GAMERS_STREAM_MAX_BYTES)', (info) => info.config.max_bytes);
  gauge('gfts_jetstream_stream_messages', 'messages the stream holds', (info) => info.state.messages);
  gauge('gfts_jetstream_stream_oldest_age_seconds', 'age of the stream\'s oldest message: how far back it still reaches (0 when empty)', (info) =>
    info.state.messages > 0 ? Math.max(0, (Date.now() - Date.parse(info.state.first_ts)) / 1000) : 0);
}
