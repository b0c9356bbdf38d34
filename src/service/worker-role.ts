import { startHousekeeping } from '../../workers/housekeeping.ts';
import { registry } from '../../workers/index.ts';
import { startWorkers, type WorkerPool } from '../../workers/pool.ts';
import { startShardLayouts } from '../../workers/shard-layouts.ts';
import { ActiveRelay } from '../events/relay-leadership.ts';
import { RelayWake } from '../events/relay-wake.ts';
import { CommandQueues } from '@fulfil/client/transport';
import { inventoryPlace } from '@fulfil/contract';
import { ReplySender } from '../queues/reply-channel.ts';
import { WebhookFanOut } from '../webhooks/fan-out.ts';
import { deadlinePolicyOf } from '../domain/deadline-policy.ts';
import { TimerQueue } from '../timers/deadline-timers.ts';
import { startTimerWorker, syncOrderTimers } from '../timers/timer-worker.ts';
import { sweepTimers } from '../timers/sweep-timers.ts';
import { resumeAdvances } from '../sandbox/clock-advance.ts';
import type { ClockDelivery } from '../sandbox/clock-events.ts';
import type { RoleContext } from './role-context.ts';

/**
 * The worker role: the command workers, the outbox relay (one active per deployment) and its
 * webhook fan-out, the shard layouts and housekeeping. Delivery is the webhooks role's.
 */
export async function startWorkerRole(ctx: RoleContext): Promise<void> {
  const { config, log, database, prefix, inboxes, onStop, blocking } = ctx;
  const workerProducer = await ctx.workerProducer();
  // The fan-out and the sweep queue deliveries; whichever process runs the webhooks role makes them.
  const webhookQueue = await ctx.webhookQueue();
  // A test clock's own events (src/sandbox/clock-events.ts): sent now; the webhook sweep would later.
  const sendClockEvents = (deliveries: ClockDelivery[]) => {
    if (deliveries.length === 0) return;
    webhookQueue
      .kick(deliveries.map((d) => ({ endpointId: d.endpointId, orderId: null, deliveryId: d.deliveryId, attempts: 0 })))
      .catch((err: unknown) => log.warn({ err }, "could not queue a test clock event's deliveries; the webhook sweep will"));
  };
  // One process of the deployment relays at a time; the others stand by (relay-leadership.ts).
  const relay = new ActiveRelay({
    database,
    databaseUrl: config.DATABASE_URL,
    connection: workerProducer,
    prefix,
    log,
    batchSize: config.RELAY_BATCH_SIZE,
    intervalMs: config.RELAY_INTERVAL_MS,
    checkMs: config.RELAY_LEADER_CHECK_MS,
    follower: new WebhookFanOut(webhookQueue, log),
    stream: config.EVENTS_STREAM === 'on' ? { maxLen: config.EVENTS_STREAM_MAXLEN } : undefined,
  });
  // Commands wake the relay after their commit, not inside it (relay-wake.ts).
  const wake = new RelayWake({ database, log, local: () => relay.nudge() });
  // Deadline timers: armed after the commands that change them commit, fired here (src/timers/).
  const timerQueue = new TimerQueue({ prefix, connection: workerProducer });
  const pool: WorkerPool = startWorkers({
    database,
    registry: registry(),
    connection: blocking,
    concurrency: config.WORKER_CONCURRENCY,
    log,
    places: [inventoryPlace(prefix)],
    replies: new ReplySender(workerProducer, inboxes),
    onCommitted: () => wake.committed(),
    onTimers: (orderId) => void syncOrderTimers(database, timerQueue, orderId, log),
    deadlines: deadlinePolicyOf(config),
  });
  const timers = startTimerWorker({
    database,
    prefix,
    connection: blocking,
    concurrency: config.WORKER_CONCURRENCY,
    log,
    onFired: () => wake.committed(),
    onClockEvents: (deliveries) => sendClockEvents(deliveries),
    onTimers: (orderId) => void syncOrderTimers(database, timerQueue, orderId, log),
  });
  onStop({
    phase: 'workers',
    name: 'workers',
    close: async () => {
      await Promise.all([pool.close(config.SHUTDOWN_DEADLINE_MS), timers.close()]);
      wake.stop();
    },
  });
  await relay.start();
  onStop({ phase: 'workers', name: 'outbox relay', close: () => relay.stop() });
  const requeue = new CommandQueues({
    prefix,
    connection: workerProducer,
    attempts: config.JOB_ATTEMPTS,
    backoffMs: config.JOB_BACKOFF_MS,
    shards: config.COMMAND_SHARDS,
  });
  const layouts = startShardLayouts({
    producer: workerProducer,
    prefix,
    shards: config.COMMAND_SHARDS,
    subset: config.WORKER_SHARDS,
    pool,
    // WORKER_CONCURRENCY is per process: the command shards it consumes share it out.
    concurrency: Math.max(1, Math.ceil(config.WORKER_CONCURRENCY / (config.WORKER_SHARDS?.length ?? config.COMMAND_SHARDS))),
    queues: requeue,
    log,
    refreshMs: config.SHARD_REFRESH_MS,
    retireIdleMs: config.SHARD_RETIRE_IDLE_MS,
  });
  onStop({ phase: 'workers', name: 'shard layouts', close: () => layouts.close() });
  // Recovery, retention and the webhook sweep run once per period for the deployment, not per process.
  const housekeeping = startHousekeeping({
    database,
    config,
    prefix,
    producer: workerProducer,
    connection: blocking,
    queues: requeue,
    shardCounts: () => layouts.counts(),
    webhookQueue,
    timerQueue,
    log,
  });
  // One timer sweep now, not a period from now: orders seeded, restored or come due while no worker
  // ran are armed at start (a deadline long past fires at once). Start-up does not wait for it, and
  // processes starting together are safe: a timer's job id is its order and kind, so it is armed
  // once, and Postgres decides whether it fires. A failure is left to the periodic sweep.
  let stopping = false;
  // Closing the queue at stop ends a sweep still paging: its next Redis call fails, quietly.
  void sweepTimers(database, timerQueue).then(
    (result) => log.info(result, 'deadline timers checked at start'),
    (err: unknown) => {
      if (!stopping) log.warn({ err }, 'the timer sweep at start failed; the periodic sweep will arm them');
    },
  );
  // Test clocks whose advance a killed worker left running go on now (src/sandbox/clock-advance.ts).
  void resumeAdvances(database, {
    done: (run) => {
      wake.committed();
      sendClockEvents(run.deliveries);
    },
    error: (err, clockId) => {
      if (!stopping) log.warn({ err, clockId }, 'a test clock advance failed at start; the timer sweep starts it again');
    },
  }).catch(() => undefined);
  onStop({
    phase: 'workers',
    name: 'housekeeping',
    close: async () => {
      stopping = true;
      await housekeeping.close();
      await requeue.close();
      await timerQueue.close();
    },
  });
}
