import type { InventoryGrantedEvent, NatsNames, TaskClaimedEvent, TaskCompletedEvent, TaskProgressEvent } from '@gfts/contracts';
import { requestHeaders, tracedPublish } from '@gfts/platform';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';

/**
 * Notifications the tasks service publishes on core NATS once the database holds the
 * change: task.progress, task.completed, task.claimed, inventory.granted. At least once around a crash
 * (a redelivered event or a recovered claim may publish again), never before the write.
 */
export class TaskEvents {
  private readonly nc: NatsConnection;
  private readonly names: NatsNames;
  private readonly log: FastifyBaseLogger;

  constructor(nc: NatsConnection, names: NatsNames, log: FastifyBaseLogger) {
    this.nc = nc;
    this.names = names;
    this.log = log;
  }

  /** Whether the event went to the connection (it may still be lost with it). */
  private publish(subject: string, body: unknown): boolean {
    try {
      tracedPublish(subject, () => {
        const headers = requestHeaders();
        this.nc.publish(subject, JSON.stringify(body), headers ? { headers } : undefined);
      });
      return true;
    } catch (error) {
      this.log.warn({ err: error, subject }, 'could not publish event');
      return false;
    }
  }

  completed(event: TaskCompletedEvent): boolean {
    return this.publish(this.names.taskCompleted, event);
  }

  progressed(event: TaskProgressEvent): void {
    this.publish(this.names.taskProgress, event);
  }

  claimed(event: TaskClaimedEvent): void {
    this.publish(this.names.taskClaimed, event);
  }

  granted(event: InventoryGrantedEvent): void {
    this.publish(this.names.inventoryGranted, event);
  }

  catalogChanged(applicationId: string): void {
    this.publish(this.names.tasksCatalogChanged, { applicationId });
  }
}
