import { Queue, type Telemetry } from 'bullmq';
import type { RedisConnection } from '../redis/connections.ts';
import { Unavailable, shardOfCommand } from '@fulfil/contract';
import {
  DEFAULT_JOB_OPTIONS,
  INVENTORY_QUEUE,
  QUEUE_OF,
  isValidCommandId,
  type Envelope,
  type JobMap,
  type JobName,
  commandShardPlace,
  commandShardPlaces,
  inventoryPlace,
  type QueuePlace,
} from '@fulfil/contract';
import { ShardCountGuard, ShardCountMismatch } from './shard-guard.ts';

/**
 * The producer side of the command queues: `shards` order-command queues (routed by order,
 * shard-of.ts) and the inventory queue, one BullMQ Queue per place, fail-fast Redis. Queues of
 * another shard layout (lost-command recovery looks there) are made on first use.
 */
export class CommandQueues {
  readonly shards: number;
  private readonly made = new Map<string, Queue>();
  private readonly jobOptions;
  private readonly guard: ShardCountGuard | undefined;

  constructor(
    private readonly opts: {
      prefix: string;
      connection: RedisConnection;
      attempts?: number;
      backoffMs?: number;
      /** COMMAND_SHARDS: how many order-command queues. Default 1. */
      shards?: number;
      /** Check the shard count against the workers' before sending (producers; the workers' own requeue needs not). */
      checkShards?: boolean;
      /** BullMQ telemetry (bullmq-otel): each job carries the trace context of the code that added it. */
      telemetry?: Telemetry;
    },
  ) {
    this.shards = opts.shards ?? 1;
    this.jobOptions = {
      ...DEFAULT_JOB_OPTIONS,
      attempts: opts.attempts ?? DEFAULT_JOB_OPTIONS.attempts,
      backoff: { ...DEFAULT_JOB_OPTIONS.backoff, delay: opts.backoffMs ?? DEFAULT_JOB_OPTIONS.backoff.delay },
    };
    if (opts.checkShards) this.guard = new ShardCountGuard(opts.connection, opts.prefix, this.shards);
    for (const place of this.places()) this.queueAt(place);
  }

  /** This producer's queues: every command shard, then inventory. */
  places(): QueuePlace[] {
    return [...commandShardPlaces(this.opts.prefix, this.shards), inventoryPlace(this.opts.prefix)];
  }

  queues(): Queue[] {
    return this.places().map((p) => this.queueAt(p));
  }

  /** The queue a command goes to under `shards` queues (this producer's count unless given). */
  queueFor<N extends JobName>(name: N, payload: JobMap[N], shards = this.shards): Queue {
    if (QUEUE_OF[name] === INVENTORY_QUEUE) return this.queueAt(inventoryPlace(this.opts.prefix));
    return this.queueAt(commandShardPlace(this.opts.prefix, shardOfCommand(name, payload, shards), shards));
  }

  queueAt(place: QueuePlace): Queue {
    const key = `${place.prefix}\n${place.name}`;
    let queue = this.made.get(key);
    if (!queue) {
      queue = new Queue(place.name, {
        prefix: place.prefix,
        connection: this.opts.connection,
        defaultJobOptions: this.jobOptions,
        ...(this.opts.telemetry ? { telemetry: this.opts.telemetry } : {}),
      });
      // Redis trouble surfaces on enqueue as Unavailable; without a listener BullMQ 6 prints every
      // connection error of an idle queue to the console.
      queue.on('error', () => {});
      this.made.set(key, queue);
    }
    return queue;
  }

  /** Throws ShardCountMismatch when the workers announce counts and this producer's is not among them. */
  async checkShardCount(): Promise<void> {
    await this.guard?.check();
  }

  /**
   * Adds the command as a job whose id is the command id, on its order's shard, so a second add
   * of the same command while the first job is still kept is a no-op in Redis (Postgres dedupes
   * beyond that). Any Redis failure becomes Unavailable: the caller answers 503 and nothing was
   * taken; so does a shard count the workers do not consume (ShardCountMismatch).
   */
  async enqueue<N extends JobName>(
    name: N,
    envelope: Envelope<JobMap[N]>,
    /** traceMetadata: a trace context for the job to carry (job.opts.telemetry.metadata). */
    opts: { revive?: boolean; traceMetadata?: string | undefined } = {},
  ): Promise<void> {
    if (!isValidCommandId(envelope.commandId)) throw new Error(`invalid command id ${envelope.commandId}`);
    try {
      await this.guard?.check();
      const queue = this.queueFor(name, envelope.payload);
      const metadata = opts.traceMetadata;
      await queue.add(name, envelope, { jobId: envelope.commandId, ...(metadata ? { telemetry: { metadata } } : {}) });
      // A job that used up its attempts stays in the failed set, where a second add is a no-op:
      // a replay of its command gives it a fresh set of attempts instead.
      if (opts.revive) {
        const job = await queue.getJob(envelope.commandId);
        if (job && (await job.getState()) === 'failed') await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      }
    } catch (err) {
      if (err instanceof ShardCountMismatch) throw err;
      throw Object.assign(new Unavailable(), { cause: err });
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.made.values()].map((q) => q.close()));
  }
}
