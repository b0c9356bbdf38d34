import { createHash, randomUUID } from 'node:crypto';
import type { SqlRunner } from '../db/client.ts';
import { findCommand, forgetCommand, insertCommand, requeueCommand } from '../db/sql/insert-command.ts';
import { isSameCommand } from '../commands/fingerprint.ts';
import { storedPayload } from '../commands/stored-payload.ts';
import { IdempotencyConflict, Unavailable } from '../errors.ts';
import type { CommandQueues } from './command-queues.ts';
import type { Actor, CommandResult, JobMap, JobName } from './job-map.ts';
import type { CommandWaiters } from './waiters.ts';

export interface DispatchRequest<N extends JobName> {
  name: N;
  actor: Actor;
  payload: JobMap[N];
  /** Identifies the request for idempotency: same key + same hash replays, another hash is 409. */
  requestHash: string;
  idempotencyKey?: string | undefined;
  /** `Prefer: respond-async`: answer 202 at once. */
  async?: boolean;
  signal?: AbortSignal;
  requestId?: string;
}

export type DispatchOutcome = { kind: 'done'; commandId: string; result: CommandResult } | { kind: 'accepted'; commandId: string };

/** What the HTTP side needs of the producer: routes depend on this, not on the class. */
export interface Dispatch {
  dispatch<N extends JobName>(req: DispatchRequest<N>): Promise<DispatchOutcome>;
}

/** A command id derived from the caller's key, so a retry maps to the same job and row. */
export function commandIdFor(brokerageId: number, idempotencyKey?: string): string {
  if (!idempotencyKey) return `c-${randomUUID()}`;
  const digest = createHash('sha256').update(`${brokerageId}\n${idempotencyKey}`).digest('hex').slice(0, 40);
  return `k-${digest}`;
}

/**
 * Takes a command from the HTTP side: records it in Postgres (where idempotency and command
 * status live, and from where a job Redis lost is queued again), enqueues it, and waits for the
 * `completed` event, whose return value is the answer. Postgres is read again only for a replay
 * or when the wait runs out; after `waitMs` the caller answers 202. If Redis refuses the job the
 * row is removed again: nothing was taken.
 */
export class CommandDispatcher implements Dispatch {
  constructor(
    private readonly deps: {
      database: SqlRunner;
      queues: CommandQueues | undefined;
      waiters: CommandWaiters | undefined;
      waitMs: number;
    },
  ) {}

  async dispatch<N extends JobName>(req: DispatchRequest<N>): Promise<DispatchOutcome> {
    const { database } = this.deps;
    const commandId = commandIdFor(req.actor.brokerageId, req.idempotencyKey);
    const inserted = await insertCommand(database, {
      id: commandId,
      name: req.name,
      brokerageId: req.actor.brokerageId,
      idempotencyKey: req.idempotencyKey ?? null,
      requestHash: req.requestHash,
      payload: JSON.stringify(storedPayload(req.name, req.payload)),
      actor: JSON.stringify(req.actor),
    });
    if (!inserted) {
      const existing = await findCommand(database, commandId);
      if (!existing || !isSameCommand(existing, { name: req.name, brokerageId: req.actor.brokerageId, requestHash: req.requestHash })) {
        throw new IdempotencyConflict();
      }
      if (existing.resultStatus !== null) {
        return { kind: 'done', commandId, result: { status: existing.resultStatus, body: existing.resultBody } };
      }
      // Still unfinished: enqueue again. A job with this id that Redis still holds makes it a
      // no-op; one that Redis lost (flushed, failed over) is given back; one whose attempts ran
      // out (status failed, no result) gets new ones.
      if (existing.status === 'failed') await requeueCommand(database, commandId);
    }
    const { queues, waiters } = this.deps;
    if (!queues) throw new Unavailable();
    const waiter = req.async || !waiters ? undefined : waiters.wait(commandId, this.deps.waitMs, req.signal);
    try {
      await queues.enqueue(
        req.name,
        {
          commandId,
          actor: req.actor,
          requestHash: req.requestHash,
          payload: req.payload,
          ...(req.requestId ? { requestId: req.requestId } : {}),
        },
        { revive: !inserted },
      );
    } catch (err) {
      waiter?.cancel();
      if (inserted) await forgetCommand(database, commandId).catch(() => {});
      throw err;
    }
    if (!waiter) return { kind: 'accepted', commandId };
    const deadline = Date.now() + this.deps.waitMs;
    let current = waiter;
    // A replay may have finished between the read above and the listener: look once more.
    if (!inserted) {
      const finished = await this.result(commandId);
      if (finished) {
        current.cancel();
        return { kind: 'done', commandId, result: finished };
      }
    }
    for (;;) {
      const woke = await current.done;
      if (woke && woke.event === 'completed' && woke.result) return { kind: 'done', commandId, result: woke.result };
      // Shutting down: the job is in Redis and will run; the caller polls its Location.
      if (waiters!.closed) return { kind: 'accepted', commandId };
      const left = deadline - Date.now();
      if (!woke || left <= 0) {
        const last = await this.result(commandId);
        return last ? { kind: 'done', commandId, result: last } : { kind: 'accepted', commandId };
      }
      // A failed attempt that will be retried: keep waiting for the next.
      current = waiters!.wait(commandId, left, req.signal);
    }
  }

  /** Whether the command's job used up its attempts without a result (workers/mark-exhausted.ts). */
  async exhausted(commandId: string): Promise<boolean> {
    const row = await findCommand(this.deps.database, commandId);
    return row?.status === 'failed' && row.resultStatus === null;
  }

  async result(commandId: string): Promise<CommandResult | undefined> {
    const row = await findCommand(this.deps.database, commandId);
    return row && row.resultStatus !== null ? { status: row.resultStatus, body: row.resultBody } : undefined;
  }
}
