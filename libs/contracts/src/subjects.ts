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
    /** events that failed processing past the redelivery bound */
    statsDeadLetter: `${prefix}.dlq.stats`,
    /** the stream keeping dead-lettered stat events, for an operator to inspect */
    statsDeadLetterStream: `${streamPrefix}_STATS_DLQ`,
    taskCompleted: `${prefix}.task.completed`,
    taskClaimed: `${prefix}.task.claimed`,
    inventoryGranted: `${prefix}.inventory.granted`,
    /** tasks-internal: a replica changed an application's catalog, the others drop their cached copy */
    tasksCatalogChanged: `${prefix}.internal.tasks.catalog-changed`,
  };
}
export type NatsNames = ReturnType<typeof natsNames>;
