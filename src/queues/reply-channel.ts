import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { RedisConnection } from '@fulfil/client/transport';
import type { CommandResult } from '@fulfil/contract';
import { replyChannel } from '@fulfil/contract';

/**
 * Where a command's answer goes: the job names the reply channel of the API process that waits
 * for it (`replyTo`), and the worker that ran it hands the result straight there, instead of
 * every API process reading every job's events from BullMQ's events stream.
 *
 * A channel is a Redis pub/sub channel, so nothing is stored: a process that is gone (restarted,
 * crashed) leaves no key behind, and a reply to it reaches nobody. Its callers would have timed
 * out anyway; Postgres holds every result (the waiting side reads it on a timeout).
 */
export function newReplyChannel(prefix: string): string {
  return replyChannel(prefix, `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/**
 * Delivers one answer to the process that waits on a channel, with the request hash of the job
 * that produced it: requests that share an Idempotency-Key share one job, and only those whose
 * request is that job's may take its answer (the others are 409, dispatcher.ts).
 */
export type ReplyInbox = (commandId: string, result: CommandResult, requestHash: string | undefined) => void;

/**
 * The reply channels of one service's own API, so its workers hand an answer to a caller of the
 * same service in memory, with no trip through Redis.
 */
export class LocalInboxes {
  private readonly inboxes = new Map<string, ReplyInbox>();

  open(channel: string, inbox: ReplyInbox): void {
    this.inboxes.set(channel, inbox);
  }

  close(channel: string): void {
    this.inboxes.delete(channel);
  }

  get(channel: string): ReplyInbox | undefined {
    return this.inboxes.get(channel);
  }
}

/** A reply as it travels on the channel. */
export function encodeReply(commandId: string, result: CommandResult, requestHash: string | undefined): string {
  return JSON.stringify([commandId, result.status, result.body, requestHash ?? null]);
}

export function decodeReply(message: string): { commandId: string; result: CommandResult; requestHash: string | undefined } | undefined {
  try {
    const v = JSON.parse(message) as unknown;
    if (!Array.isArray(v) || typeof v[0] !== 'string' || typeof v[1] !== 'number') return undefined;
    return { commandId: v[0], result: { status: v[1], body: v[2] }, requestHash: typeof v[3] === 'string' ? v[3] : undefined };
  } catch {
    return undefined;
  }
}

/**
 * The workers' side: hands a finished command's answer to `replyTo`, in memory when the waiting
 * API runs in this process, else published on Redis. Best effort: a lost reply only makes the
 * caller read Postgres when its wait runs out.
 */
export class ReplySender {
  constructor(
    private readonly publisher: RedisConnection,
    private readonly local: LocalInboxes,
  ) {}

  /**
   * `via`: the connection the job came on, when there is one. BullMQ finishes the job on it in the
   * same event-loop turn, and a connection sends one turn's commands in one write
   * (ending-redis.ts), so the answer leaves with the finish: one system call and one Redis wake-up
   * per command instead of two (docs/BENCHMARKS.md). Every connection of a deployment reaches the
   * same Redis, where the waiting API listens.
   */
  send(replyTo: string, commandId: string, result: CommandResult, requestHash: string, via?: RedisConnection): void {
    const local = this.local.get(replyTo);
    if (local) return local(commandId, result, requestHash);
    // The answer is stored with the command: a waiter whose reply is lost reads it from Postgres
    // when its wait runs out (reply-waiters.ts), so a failed publish only delays that caller.
    (via ?? this.publisher).publish(replyTo, encodeReply(commandId, result, requestHash)).catch(() => {});
  }
}
