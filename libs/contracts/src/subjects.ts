/**
 * NATS subject and stream names. All hang under one prefix (config NATS_PREFIX, default
 * "gfts") so several environments, or parallel test runs, can share one NATS cluster.
 */
export function natsNames(prefix = 'gfts') {
  const streamPrefix = prefix.toUpperCase().replace(/[^A-Z0-9]/g, '_');
  return {
    /** friendship notifications: `<prefix>.friendship.<type>` */
    friendshipEvent: (type: string) => `${prefix}.friendship.${type}`,
    friendshipEvents: `${prefix}.friendship.*`,
    /** request-reply: may B message A? */
    canMessage: `${prefix}.rpc.friendship.can-message`,
    /** stat events: game servers publish one game of one gamer to `<prefix>.stats.<applicationId>` */
    statsSubject: (applicationId: string) => `${prefix}.stats.${applicationId}`,
    statsSubjects: `${prefix}.stats.*`,
    statsStream: `${streamPrefix}_STATS`,
    statsConsumer: `${prefix}-tasks-stats`,
    /**
     * events that failed processing past the redelivery bound, per application:
     * `<prefix>.dlq.stats.<applicationId>` (the last token of the event's subject), so one
     * application's letters are read without reading another's
     */
    statsDeadLetterOf: (applicationId: string) => `${prefix}.dlq.stats.${applicationId}`,
    statsDeadLetters: `${prefix}.dlq.stats.>`,
    /** where letters went before 2026-11-27, all applications on one subject (still read) */
    statsDeadLetter: `${prefix}.dlq.stats`,
    /** the stream keeping dead-lettered stat events, for an operator to inspect */
    statsDeadLetterStream: `${streamPrefix}_STATS_DLQ`,
    taskCompleted: `${prefix}.task.completed`,
    taskClaimed: `${prefix}.task.claimed`,
    inventoryGranted: `${prefix}.inventory.granted`,
    /** a gamer task's progress moved without completing it (published once per task per stat batch) */
    taskProgress: `${prefix}.task.progress`,
    /**
     * Notifications ready for one gamer's sockets: `<prefix>.notify.<applicationId>.<gamerId>`.
     * The replica that ingests a domain event publishes here; every replica holding a socket
     * of that gamer subscribes to the gamer's subject (docs/notifications.md, "Fan-out").
     */
    notifyGamer: (applicationId: string, gamerId: string) => `${prefix}.notify.${applicationId}.${gamerId}`,
    notifyAll: `${prefix}.notify.>`,
    /** the queue group in which exactly one notifications replica ingests each domain event */
    notificationsIngestQueue: `${prefix}-notifications`,
    /** the queue group in which one notifications replica deletes again, per report of another service, what an erased gamer's late events stored */
    notificationsErasureFollowUpQueue: `${prefix}-notifications-erasure-reports`,
    /** gamer lifecycle (docs/gamer-erasure.md): the GAMERS stream holds both subjects */
    gamerErased: `${prefix}.gamer.erased`,
    gamerErasureCompleted: `${prefix}.gamer.erasure.completed`,
    gamersStream: `${streamPrefix}_GAMERS`,
    /** each service's durable consumer of gamer.erased: `<prefix>-<service>-gamer-erased` */
    gamerErasedConsumer: (service: string) => `${prefix}-${service}-gamer-erased`,
    /** the tasks service's durable consumer of the completion reports (it keeps the jobs) */
    erasureProgressConsumer: `${prefix}-tasks-erasure-progress`,
    /**
     * Presence, written per notifications replica (keys: presence-keys.ts): each replica's
     * heartbeat `<holder>.alive`, refreshed every PRESENCE_RECORD_INTERVAL_MS, and
     * `<holder>.<applicationId>.<gamerId>` per gamer it holds sockets of (put on the first,
     * deleted with the last, not refreshed). No max age: a replica whose heartbeat is older
     * than the online window is dead, and the friendship service purges its keys. Every
     * friendship replica watches it. (`<prefix>_presence`, the per-gamer bucket before it,
     * is no longer used.)
     */
    presenceBucket: `${prefix}_presence_holds`,
    presenceStream: `KV_${prefix}_presence_holds`,
    /**
     * The last presence change announced per gamer (`<applicationId>.<gamerId>` -> status
     * and time): friendship replicas claim a change here with a compare-and-set, so each
     * change is announced once, whatever the number of replicas.
     */
    presenceAnnouncedBucket: `${prefix}_presence_announced`,
    presenceAnnouncedStream: `KV_${prefix}_presence_announced`,
    /** a settled presence change with the friends to tell (friendship -> notifications) */
    presenceChanged: `${prefix}.presence.changed`,
    /** tasks-internal: a replica changed an application's catalog, the others drop their cached copy */
    tasksCatalogChanged: `${prefix}.internal.tasks.catalog-changed`,
  };
}
export type NatsNames = ReturnType<typeof natsNames>;
