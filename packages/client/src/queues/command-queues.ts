import { Queue } from 'bullmq';
import type { RedisConnection } from '../redis/connections.ts';
import { Unavailable } from '../errors.ts';
import {
  COMMAND_QUEUES,
  DEFAULT_JOB_OPTIONS,
  QUEUE_OF,
  isValidCommandId,
  type CommandQueueName,
  type Envelope,
  type JobMap,
  type JobName,
} from './job-map.ts';

/** The producer side of the command queues: one BullMQ Queue per queue name, fail-fast Redis. */
export class CommandQueues {
  readonly queues: ReadonlyMap<CommandQueueName, Queue>;

  constructor(opts: { prefix: string; connection: RedisConnection; attempts?: number; backoffMs?: number }) {
    const jobOptions = {
      ...DEFAULT_JOB_OPTIONS,
      attempts: opts.attempts ?? DEFAULT_JOB_OPTIONS.attempts,
      backoff: { ...DEFAULT_JOB_OPTIONS.backoff, delay: opts.backoffMs ?? DEFAULT_JOB_OPTIONS.backoff.delay },
    };
    this.queues = new Map(
      COMMAND_QUEUES.map((name) => [
        name,
        new Queue(name, { prefix: opts.prefix, connection: opts.connection, defaultJobOptions: jobOptions }),
      ]),
    );
    // Redis trouble surfaces on enqueue as Unavailable; without a listener BullMQ 6 prints every
    // connection error of an idle queue to the console.
    for (const q of this.queues.values()) q.on('error', () => {});
  }

  queue(name: CommandQueueName): Queue {
    return this.queues.get(name)!;
  }

  /**
   * Adds the command as a job whose id is the command id, so a second add of the same command
   * while the first job is still kept is a no-op in Redis (Postgres dedupes beyond that).
   * Any Redis failure becomes Unavailable: the caller answers 503 and nothing was taken.
   */
  async enqueue<N extends JobName>(name: N, envelope: Envelope<JobMap[N]>, opts: { revive?: boolean } = {}): Promise<void> {
    if (!isValidCommandId(envelope.commandId)) throw new Error(`invalid command id ${envelope.commandId}`);
    try {
      const queue = this.queue(QUEUE_OF[name]);
      await queue.add(name, envelope, { jobId: envelope.commandId });
      // A job that used up its attempts stays in the failed set, where a second add is a no-op:
      // a replay of its command gives it a fresh set of attempts instead.
      if (opts.revive) {
        const job = await queue.getJob(envelope.commandId);
        if (job && (await job.getState()) === 'failed') await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      }
    } catch (err) {
      throw Object.assign(new Unavailable(), { cause: err });
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}
