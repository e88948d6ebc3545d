import { natsNames } from './subjects.ts';

/**
 * Who may publish and subscribe to what on NATS, derived from the subject names above so
 * the server configuration cannot drift from the code (libs/contracts/scripts/
 * write-nats-auth.ts renders it; a unit test compares the committed files).
 */
export interface NatsUserPermissions {
  user: string;
  /** the server reads the password from this environment variable (a Secret in Kubernetes) */
  passwordEnv: string;
  publish: string[];
  subscribe: string[];
  /** may answer requests sent to it (publish to the reply subject it was given, once) */
  allowResponses: boolean;
}

/**
 * Each client gets replies on its own inbox prefix instead of the shared `_INBOX.>`, so
 * no other user may subscribe to them (JetStream API answers carry stored stat events).
 * Clients set it as the connection's inboxPrefix (nats.js) / CustomInboxPrefix (Go).
 */
export const natsInboxPrefix = (user: string) => `_INBOX_${user}`;

export const gameServerUser = (applicationId: string) => `gs-${applicationId}`;

const passwordEnv = (user: string) => `NATS_${user.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_PASSWORD`;

const JS_API = '$JS.API';

/** Looking up, creating or updating the GAMERS stream: every service that erases gamers ensures it. */
const gamersStreamApi = (n: ReturnType<typeof natsNames>) => [`${JS_API}.INFO`, ...['INFO', 'CREATE', 'UPDATE'].map((verb) => `${JS_API}.STREAM.${verb}.${n.gamersStream}`)];

/** Creating, reading from and acknowledging on one durable consumer of the GAMERS stream. */
const gamersDurableApi = (n: ReturnType<typeof natsNames>, durable: string) => [
  `${JS_API}.CONSUMER.INFO.${n.gamersStream}.${durable}`,
  `${JS_API}.CONSUMER.CREATE.${n.gamersStream}.${durable}`,
  `${JS_API}.CONSUMER.CREATE.${n.gamersStream}.${durable}.>`,
  `${JS_API}.CONSUMER.MSG.NEXT.${n.gamersStream}.${durable}`,
  `$JS.ACK.${n.gamersStream}.${durable}.>`,
];

/**
 * What a service that holds gamer data needs to take part in erasure (docs/gamer-erasure.md):
 * the stream, its own consumer of gamer.erased, and publishing its completion report.
 * A notifications service gets the same with its own name.
 */
export function gamerErasurePermissions(prefix: string, service: string): string[] {
  const n = natsNames(prefix);
  return [n.gamerErasureCompleted, ...gamersStreamApi(n), ...gamersDurableApi(n, n.gamerErasedConsumer(service))];
}

/** The tasks service: its events, the stats stream, its dead letters and the JetStream calls it makes. */
export function tasksPermissions(prefix: string): NatsUserPermissions {
  const n = natsNames(prefix);
  const api = '$JS.API';
  const streams = [n.statsStream, n.statsDeadLetterStream];
  return {
    user: 'tasks',
    passwordEnv: passwordEnv('tasks'),
    publish: [
      // POST /api/v1/stats stores events for the application the gateway authenticated
      n.statsSubjects,
      n.statsDeadLetters,
      // the shared subject of before 2026-11-27: where a letter goes while a rollout runs
      n.statsDeadLetter,
      n.taskCompleted,
      n.taskClaimed,
      n.inventoryGranted,
      n.taskProgress,
      n.tasksCatalogChanged,
      // jetstreamManager() checks the account first
      `${api}.INFO`,
      // ensureStatsTopology: both streams looked up, created or updated; nothing else
      ...streams.flatMap((s) => [`${api}.STREAM.INFO.${s}`, `${api}.STREAM.CREATE.${s}`, `${api}.STREAM.UPDATE.${s}`]),
      // the max-deliveries advisory names a sequence; the dead-letter copy reads it
      `${api}.STREAM.MSG.GET.${n.statsStream}`,
      // the admin API lists, replays (republishing on the stats subjects above) and deletes dead letters
      `${api}.STREAM.MSG.GET.${n.statsDeadLetterStream}`,
      `${api}.STREAM.MSG.DELETE.${n.statsDeadLetterStream}`,
      `${api}.CONSUMER.INFO.${n.statsStream}.${n.statsConsumer}`,
      // create and update share one subject, with the filter subject as a further token
      `${api}.CONSUMER.CREATE.${n.statsStream}.${n.statsConsumer}`,
      `${api}.CONSUMER.CREATE.${n.statsStream}.${n.statsConsumer}.>`,
      `${api}.CONSUMER.MSG.NEXT.${n.statsStream}.${n.statsConsumer}`,
      // ack, nak (with delay) and term of delivered stat events
      `$JS.ACK.${n.statsStream}.${n.statsConsumer}.>`,
      // gamer erasure: it publishes the request, erases its own part and keeps the jobs
      n.gamerErased,
      ...gamerErasurePermissions(prefix, 'tasks').filter((s) => s !== `${api}.INFO`),
      ...gamersDurableApi(n, n.erasureProgressConsumer),
    ],
    subscribe: [
      `${natsInboxPrefix('tasks')}.>`,
      n.tasksCatalogChanged,
      `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${n.statsStream}.${n.statsConsumer}`,
    ],
    allowResponses: false,
  };
}

/**
 * The friendship service: its notifications, answers to the can-message requests, its part of
 * gamer erasure, the presence bucket it creates, watches (an ordered consumer delivering
 * to its inbox; flow-control replies go out as responses) and purges of stopped notifications
 * replicas' keys, and the announced-presence bucket
 * it creates and claims presence changes in (read, create and compare-and-set keys).
 */
export function friendshipPermissions(prefix: string): NatsUserPermissions {
  const n = natsNames(prefix);
  const api = '$JS.API';
  const stream = n.presenceStream;
  const announced = n.presenceAnnouncedStream;
  return {
    user: 'friendship',
    passwordEnv: passwordEnv('friendship'),
    // a set: gamer erasure needs `$JS.API.INFO` too
    publish: [...new Set([
      n.friendshipEvents,
      n.presenceChanged,
      ...gamerErasurePermissions(prefix, 'friendship'),
      `${api}.INFO`,
      `${api}.STREAM.INFO.${stream}`,
      `${api}.STREAM.CREATE.${stream}`,
      // the keys of a notifications replica that stopped or died (one subject-filtered purge),
      // after a look at its heartbeat (a direct get: the sweep confirms it is old)
      `${api}.STREAM.PURGE.${stream}`,
      `${api}.DIRECT.GET.${stream}.>`,
      // the watch: its ordered consumer is created, inspected, and replaced after a gap
      `${api}.CONSUMER.CREATE.${stream}.>`,
      `${api}.CONSUMER.INFO.${stream}.>`,
      `${api}.CONSUMER.DELETE.${stream}.>`,
      // presence announcements: the bucket looked up, created or bounded (max_bytes), a key read (direct get), created or updated with its revision
      `${api}.STREAM.INFO.${announced}`,
      `${api}.STREAM.CREATE.${announced}`,
      `${api}.STREAM.UPDATE.${announced}`,
      `${api}.DIRECT.GET.${announced}.>`,
      `$KV.${n.presenceAnnouncedBucket}.>`,
    ])],
    // every replica hears each finished erasure (core), to drop what it cached of the gamer
    subscribe: [n.canMessage, n.gamerErasureCompleted, `${natsInboxPrefix('friendship')}.>`],
    allowResponses: true,
  };
}

/**
 * The notifications service: reads the domain events the friendship and tasks services
 * publish (and settled presence changes), carries ready notifications to the replicas
 * holding the gamers' sockets, writes the presence of the gamers connected to it, and
 * takes part in gamer erasure. Its JetStream answers come to its own inbox.
 */
export function notificationsPermissions(prefix: string): NatsUserPermissions {
  const n = natsNames(prefix);
  return {
    user: 'notifications',
    passwordEnv: passwordEnv('notifications'),
    publish: [n.notifyAll, ...presenceWriterPublish(prefix), ...gamerErasurePermissions(prefix, 'notifications')],
    subscribe: [
      n.friendshipEvents, n.taskCompleted, n.taskProgress, n.inventoryGranted, n.presenceChanged, n.notifyAll, `${natsInboxPrefix('notifications')}.>`,
      // the other services' erasure reports: what an erased gamer's late events stored is deleted again
      n.gamerErasureCompleted,
    ],
    allowResponses: false,
  };
}

/**
 * What writing presence takes (the notifications service, for the gamers whose sockets it
 * holds): binding the bucket, putting and purging its own `<holder>.alive` heartbeat and
 * `<holder>.<applicationId>.<gamerId>` keys (presence-keys.ts), acknowledged on the writer's
 * inbox, and reading a key back (a direct get: the heartbeat, after a write whose answer was
 * lost). It may not create, purge (as a stream) or delete the bucket.
 */
export function presenceWriterPublish(prefix: string): string[] {
  const n = natsNames(prefix);
  return [`$JS.API.STREAM.INFO.${n.presenceStream}`, `$KV.${n.presenceBucket}.>`, `$JS.API.DIRECT.GET.${n.presenceStream}.>`];
}

/**
 * The gateway's shared rate-limit counters: one NATS KV bucket per window length (a bucket
 * keeps the max age it was created with). Its name is part of the gateway user's
 * permissions, so it lives here rather than in the gateway.
 */
export const rateLimitBucket = (windowMs: number) => `gateway_rate_limit_${windowMs}`;

/** JetStream's advisory that the bucket's stream was deleted: each gateway pod binds the bucket again on it. */
export const rateLimitBucketDeleted = (windowMs: number) => `$JS.EVENT.ADVISORY.STREAM.DELETED.KV_${rateLimitBucket(windowMs)}`;

/**
 * The gateway: the KV bucket of its rate-limit window; nothing else (presence comes from
 * the live connections, which the notifications service records). NATS wildcards match whole tokens
 * only (`KV_gateway_rate_limit_*` would match no stream), so the bucket is named exactly;
 * a gateway running another RATE_LIMIT_WINDOW_MS is refused and limits per replica
 * (deploy/tools/check_deploy.py compares the two).
 */
export function gatewayPermissions(rateLimitWindowMs: number): NatsUserPermissions {
  if (!Number.isSafeInteger(rateLimitWindowMs) || rateLimitWindowMs <= 0) throw new Error(`not a rate-limit window: ${rateLimitWindowMs}`);
  const api = '$JS.API';
  const bucket = rateLimitBucket(rateLimitWindowMs);
  const stream = `KV_${bucket}`;
  return {
    user: 'gateway',
    passwordEnv: passwordEnv('gateway'),
    publish: [
      // Kvm.create: jetstreamManager() checks the account, then the bucket's stream is
      // looked up and created when missing (an existing one is never updated)
      `${api}.INFO`,
      `${api}.STREAM.INFO.${stream}`,
      `${api}.STREAM.CREATE.${stream}`,
      // get: a direct get of the key's last message (the bucket allows direct gets)
      `${api}.DIRECT.GET.${stream}.>`,
      // create and update: JetStream publishes with an expected last subject sequence
      `$KV.${bucket}.>`,
    ],
    subscribe: [
      `${natsInboxPrefix('gateway')}.>`,
      // the bucket deleted: bound again, with the counts remembered from it forgotten
      rateLimitBucketDeleted(rateLimitWindowMs),
    ],
    allowResponses: false,
  };
}

/**
 * A game server of one studio application: its own stats subject only. The inbox
 * receives JetStream's publish acknowledgements.
 */
export function gameServerPermissions(prefix: string, applicationId: string): NatsUserPermissions {
  const user = gameServerUser(applicationId);
  return {
    user,
    passwordEnv: passwordEnv(user),
    publish: [natsNames(prefix).statsSubject(applicationId)],
    subscribe: [`${natsInboxPrefix(user)}.>`],
    allowResponses: false,
  };
}

/**
 * The operators' JetStream administration with the `nats` CLI (docs/operations.md,
 * "Operator access"), in the services' account: every JetStream API call (stream and
 * consumer info, `stream view`, backup and restore, KV buckets), and the subjects those
 * commands answer on. None of the services' own subjects: it reads stored messages only
 * through JetStream, publishes no event and reads no other user's inbox.
 */
export function operatorPermissions(): NatsUserPermissions {
  return {
    user: 'ops',
    passwordEnv: passwordEnv('ops'),
    publish: [
      '$JS.API.>',
      // acknowledgements of the consumers `stream view` (and `consumer next`) create
      '$JS.ACK.>',
      // flow-control replies of ordered consumers (`kv watch`, `kv history`)
      '$JS.FC.>',
      // `stream backup` acknowledges each chunk it receives; `stream restore` sends them
      '$JS.SNAPSHOT.>',
      // keys of KV buckets (`kv put`, `kv del <bucket> <key>`)
      '$KV.>',
    ],
    subscribe: [`${natsInboxPrefix('ops')}.>`],
    allowResponses: false,
  };
}

/**
 * The operators' user of the system account (NATS's own `$SYS`, no stream and no service
 * subject): the servers' reports (`nats server list`, `server report jetstream`, every
 * `$SYS.REQ.SERVER.PING` request) and removing a lost server from the JetStream cluster
 * (`nats server raft peer-remove`). Not the per-server requests that reload, kick or stop.
 */
export function systemAccountPermissions(): NatsUserPermissions {
  return {
    user: 'sys',
    passwordEnv: passwordEnv('sys'),
    publish: ['$SYS.REQ.SERVER.PING', '$SYS.REQ.SERVER.PING.>', '$JS.API.SERVER.REMOVE'],
    subscribe: [`${natsInboxPrefix('sys')}.>`],
    allowResponses: false,
  };
}

const APPLICATION_ID = /^[A-Za-z0-9-]{1,64}$/;

/** One user of a `users = [...]` list, its lines indented by `indent`. */
function renderUser(u: NatsUserPermissions, indent: string): string {
  const list = (subjects: string[]) => subjects.map((s) => `${indent}      "${s}"`).join('\n');
  return [
    '{',
    `  user: "${u.user}"`,
    `  password: $${u.passwordEnv}`,
    '  permissions: {',
    `    publish: { allow: [\n${list(u.publish)}\n${indent}    ] }`,
    `    subscribe: { allow: [\n${list(u.subscribe)}\n${indent}    ] }`,
    ...(u.allowResponses ? ['    allow_responses: true'] : []),
    '  }',
    '}',
  ].map((line) => `${indent}${line}`).join('\n');
}

/**
 * The users of nats.conf: in the `authorization` block (the services' account, where the
 * streams are) the four services, one user per game-server application and the operators'
 * JetStream user; in the `accounts` block the operators' user of the system account
 * (`$SYS`, which the server always has). Passwords are environment references: the server
 * refuses to start when one is missing, and no password is written into a file.
 *
 * Keep `$SYS` the only declared account: the `authorization` users live in the global
 * account, whose JetStream the server enables only while no other account is declared
 * (nats-server's globalAccountOnly); one more account would leave the streams unreachable.
 */
export function renderNatsAuthorization(prefix: string, gameServerApplicationIds: readonly string[], rateLimitWindowMs: number): string {
  for (const id of gameServerApplicationIds) {
    if (!APPLICATION_ID.test(id)) throw new Error(`not an application id: ${JSON.stringify(id)}`);
  }
  const users = [
    tasksPermissions(prefix),
    friendshipPermissions(prefix),
    notificationsPermissions(prefix),
    gatewayPermissions(rateLimitWindowMs),
    ...gameServerApplicationIds.map((id) => gameServerPermissions(prefix, id)),
    operatorPermissions(),
  ];
  return [
    '# Generated from libs/contracts (nats-permissions.ts) by',
    '#   node libs/contracts/scripts/write-nats-auth.ts',
    '# Do not edit: add game-server applications to nats-game-servers.txt beside this file',
    '# and run the script (docs/operations.md, "NATS users").',
    'authorization {',
    '  users = [',
    users.map((u) => renderUser(u, '    ')).join('\n'),
    '  ]',
    '}',
    '# Users of the global account above share its streams; a system-account user sees only',
    '# the servers (reports, JetStream cluster membership).',
    'accounts {',
    '  $SYS {',
    '    users = [',
    renderUser(systemAccountPermissions(), '      '),
    '    ]',
    '  }',
    '}',
    '',
  ].join('\n');
}

/** Application ids from a nats-game-servers.txt: one a line, `#` starts a comment. */
export function parseGameServerList(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line !== '');
}
