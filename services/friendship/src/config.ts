import { BaseConfig, GamersStreamConfig, loadConfig, StoreConfig } from '@gfts/platform';
import Type, { type Static, type TObject } from 'typebox';

const FriendshipSettings = {
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8081 }),
  ...BaseConfig,
  ...StoreConfig,
  MAX_FRIENDS: Type.Integer({ minimum: 1, default: 1000, description: 'friends a gamer may have' }),
  MAX_PENDING_OUTGOING: Type.Integer({ minimum: 1, default: 100, description: 'pending outgoing requests a gamer may have' }),
  MAX_BLOCKS: Type.Integer({ minimum: 1, default: 1000, description: 'gamers a gamer may block' }),
  SUGGESTIONS_FRIENDS_READ: Type.Integer({ minimum: 1, maximum: 10_000, default: 200, description: 'friends whose friend-id lists one suggestions call reads: a gamer with more is suggested from the last this many of their list, and mutual-friend counts are counted over those (bounds a call at this many lists of up to MAX_FRIENDS ids each; 1,000 friends of 1,000 was a million ids and ~9 s of local-store CPU per call)' }),
  SUGGESTIONS_LIST_REBUILDS: Type.Integer({ minimum: 1, maximum: 10_000, default: 20, description: 'friend-id lists one suggestions call rebuilds from the relations at most (missing ones first); the others it reads as they are (a list older than FRIEND_LIST_MAX_AGE_S as it stands, a missing one as no friends) until a later call rebuilds them: bounds a call at this many lists\' relation reads (up to MAX_FRIENDS each) when many have aged out at once' }),
  FRIEND_LIST_MAX_AGE_S: Type.Integer({ minimum: 1, maximum: 604_800, default: 3600, description: 'a gamer\'s friend-id list (read by suggestions and mutual friends) is rebuilt from the relations when read this long after its last rebuild: the bound on what a crash between a friendship change and its list update can leave wrong' }),
  PROFILE_CACHE_TTL_MS: Type.Integer({ minimum: 0, maximum: 600_000, default: 5_000, description: 'how long a replica shows gamers\' names, avatars and stored last-seen times it read without reading them again: the longest a rename handled by another replica takes to show in lists; 0 reads them on every call' }),
  PROFILE_CACHE_MAX: Type.Integer({ minimum: 1, default: 20_000, description: 'most profiles a replica caches (about 500 bytes of heap each with a 25-character name and a 70-character avatar URL: ~10 MB at the default)' }),
  ...GamersStreamConfig,
  ERASURE_ACK_WAIT_MS: Type.Integer({ minimum: 1000, maximum: 3_600_000, default: 30_000, description: 'time a delivered gamer.erased event has before it is redelivered' }),
  ERASURE_RETRY_BASE_MS: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 1000, description: 'first redelivery delay of a failed gamer.erased event; doubles per attempt, at most 30 s' }),
  PRESENCE_ONLINE_WINDOW_MS: Type.Integer({ minimum: 5_000, maximum: 3_600_000, default: 60_000, description: 'how long a notifications replica counts as alive after its last presence heartbeat: a crashed replica\'s gamers turn offline after it (the holds themselves are never refreshed and have no max age)' }),
  PRESENCE_MAX_TRACKED: Type.Integer({ minimum: 1_000, default: 300_000, description: 'most online gamers a replica holds in memory (about 280 bytes of heap each: ~84 MiB at the default, beside the service\'s ~40 MB within the 192 MB old space of a 384 Mi pod)' }),
  PRESENCE_CHANGE_SETTLE_MS: Type.Integer({ minimum: 0, maximum: 600_000, default: 10_000, description: 'how long a gamer\'s new presence must hold before friends get presence.changed; changes undone sooner are never sent' }),
  PRESENCE_ANNOUNCED_BUCKET_MAX_BYTES: Type.Integer({
    minimum: 1_048_576,
    default: 536_870_912,
    description: 'most bytes the announced-presence bucket (about 220 bytes per gamer whose presence changed in 30 days) holds per server (512 MiB); past it the oldest records go, and those gamers\' next change is announced as new',
  }),
  PRESENCE_KV_REPLICAS: Type.Integer({ minimum: 1, maximum: 5, default: 1, description: 'NATS servers holding the presence bucket, when this service creates it' }),
};
export type FriendshipConfig = Static<TObject<typeof FriendshipSettings>>;

export function readFriendshipConfig(env: Record<string, string | undefined> = process.env): FriendshipConfig {
  return loadConfig(FriendshipSettings, env);
}
