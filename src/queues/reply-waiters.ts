import type { RedisConnection } from '@fulfil/client/transport';
import type { CommandResult } from '@fulfil/contract';
import { WaitingRoom } from '@fulfil/client/transport';
import { decodeReply, newReplyChannel, type LocalInboxes } from './reply-channel.ts';

/**
 * What woke a waiter: its command's answer, or `recheck`: replies may have been missed (the
 * channel's connection dropped and came back), so the caller looks in Postgres once. An answer
 * names the request hash of the job that gave it, where the channel knows it (BullMQ's events,
 * which the CLI waits on, do not): the caller compares it with its own.
 */
export type ReplyWake =
  { event: 'completed'; result: CommandResult | undefined; requestHash?: string | undefined } | { event: 'recheck' } | { event: 'failed' };

/** A wait for one command's answer; `done` is false once it timed out or was cancelled. */
export interface ReplyWait {
  done: Promise<ReplyWake | false>;
  cancel: () => void;
}

/** What the dispatcher needs of a way to wait for answers (ReplyWaiters, or the CLI's CommandWaiters). */
export interface AnswerWaiters {
  readonly closed: boolean;
  /** The channel a job names so its answer comes back here; none: the waiters read BullMQ's events. */
  readonly replyTo?: string;
  wait(commandId: string, timeoutMs: number, signal?: AbortSignal): ReplyWait;
}

/**
 * The API process's waiters for command answers: one reply channel per process (reply-channel.ts),
 * subscribed on one connection of its own; workers of the same service deliver in memory. A reply
 * that never comes (lost in a reconnect, a job re-queued by recovery, a replay whose job names
 * another process) ends in the caller's timeout, after which it reads Postgres.
 */
export class ReplyWaiters implements AnswerWaiters {
  readonly replyTo: string;
  closed = false;
  private readonly waiting = new WaitingRoom<ReplyWake>();
  private subscribed: Promise<unknown>;
  private readyOnce = false;

  constructor(
    prefix: string,
    private readonly subscriber: RedisConnection,
    private readonly local: LocalInboxes,
  ) {
    this.replyTo = newReplyChannel(prefix);
    local.open(this.replyTo, (commandId, result, requestHash) => this.waiting.wake(commandId, { event: 'completed', result, requestHash }));
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.replyTo) return;
      const reply = decodeReply(message);
      if (reply) this.waiting.wake(reply.commandId, { event: 'completed', result: reply.result, requestHash: reply.requestHash });
    });
    // ioredis subscribes again after a reconnect; whatever was published meanwhile is gone.
    subscriber.on('ready', () => {
      if (this.readyOnce) this.waiting.wakeAll({ event: 'recheck' });
      this.readyOnce = true;
    });
    this.subscribed = subscriber.subscribe(this.replyTo);
  }

  async ready(): Promise<void> {
    await this.subscribed;
  }

  wait(commandId: string, timeoutMs: number, signal?: AbortSignal): ReplyWait {
    return this.waiting.wait(commandId, timeoutMs, signal);
  }

  get size(): number {
    return this.waiting.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.local.close(this.replyTo);
    this.waiting.wakeAll({ event: 'failed' });
    // Closing: the subscriber connection goes next, and its subscriptions with it.
    await this.subscriber.unsubscribe(this.replyTo).catch(() => {});
  }
}
