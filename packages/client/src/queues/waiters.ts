import { QueueEvents } from 'bullmq';
import type { RedisConnection } from '../redis/connections.ts';
import type { CommandResult, QueuePlace } from '@fulfil/contract';
import { WaitingRoom } from './waiting-room.ts';

/** What woke a waiter: the job completed (with the result it returned) or an attempt failed. */
export type Wake = { event: 'completed'; result: CommandResult | undefined } | { event: 'failed' };

/**
 * One QueueEvents listener per queue (each command shard, inventory) per process, feeding a map of waiters by job id. A
 * `completed` event carries the job's return value, which is the command's result (the worker
 * stored the same in Postgres before returning it), so a waiter needs no read to answer; an event
 * can be missed, so callers read Postgres when their wait times out.
 */
export class CommandWaiters {
  private readonly waiting = new WaitingRoom<Wake>();
  /** Once closing, no wait can be woken by an event any more. */
  closed = false;
  private readonly events: QueueEvents[];

  constructor(places: readonly QueuePlace[], opts: { connection: () => RedisConnection; onError?: (err: Error) => void }) {
    this.events = places.map(({ name, prefix }) => new QueueEvents(name, { prefix, connection: opts.connection(), autorun: true }));
    for (const qe of this.events) {
      qe.on('completed', ({ jobId, returnvalue }) => this.waiting.wake(jobId, { event: 'completed', result: resultIn(returnvalue) }));
      qe.on('failed', ({ jobId }) => this.waiting.wake(jobId, { event: 'failed' }));
      // Without a listener an event-loop failure would surface as an unhandled rejection;
      // waiters time out and callers read Postgres anyway.
      qe.on('error', (err) => opts.onError?.(err));
    }
  }

  async ready(): Promise<void> {
    await Promise.all(this.events.map((e) => e.waitUntilReady()));
  }

  /**
   * Resolves with what woke it, or false after timeoutMs (or on cancel). Register before adding
   * the job, or check Postgres after registering, so a fast job is not missed.
   */
  wait(jobId: string, timeoutMs: number, signal?: AbortSignal): { done: Promise<Wake | false>; cancel: () => void } {
    return this.waiting.wait(jobId, timeoutMs, signal);
  }

  get size(): number {
    return this.waiting.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.waiting.wakeAll({ event: 'failed' });
    await Promise.all(this.events.map((e) => e.close()));
  }
}

/** A job's return value as a command result; BullMQ may hand it over as JSON text. */
export function resultIn(value: unknown): CommandResult | undefined {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return undefined;
    }
  }
  if (typeof v !== 'object' || v === null || typeof (v as CommandResult).status !== 'number') return undefined;
  return { status: (v as CommandResult).status, body: (v as CommandResult).body };
}
