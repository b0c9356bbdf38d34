import { createHash, randomUUID } from 'node:crypto';
import type { SqlRunner } from '../db/client.ts';
import { findCommand, forgetCommand, requeueCommand } from '../db/sql/insert-command.ts';
import { CommandRows } from './command-rows.ts';
import { isSameCommand, IdempotencyConflict, Unavailable } from '@fulfil/contract';
import { storedPayload } from '../commands/stored-payload.ts';
import type { CommandQueues } from '@fulfil/client/transport';
import { countDispatchCleanupFailure } from '../telemetry/metrics-registry.ts';
import type { Actor, CommandResult, JobMap, JobName } from '@fulfil/contract';
import type { AnswerWaiters } from './reply-waiters.ts';
import { jobNeverSent } from './enqueue-failure.ts';

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
  /** The request's trace context, for the job to carry (src/telemetry/tracing.ts). */
  traceMetadata?: string | undefined;
}

export type DispatchOutcome = { kind: 'done'; commandId: string; result: CommandResult } | { kind: 'accepted'; commandId: string };

/** What the HTTP side needs of the producer: routes depend on this, not on the class. */
export interface Dispatch {
  dispatch<N extends JobName>(req: DispatchRequest<N>): Promise<DispatchOutcome>;
}

/** How often a waiting replay reads Postgres, its answer possibly going to another process. */
const REPLAY_LOOK_MS = 250;

/** A command id derived from the caller's key, so a retry maps to the same job and row. */
export function commandIdFor(brokerageId: number, idempotencyKey?: string): string {
  if (!idempotencyKey) return `c-${randomUUID()}`;
  const digest = createHash('sha256').update(`${brokerageId}\n${idempotencyKey}`).digest('hex').slice(0, 40);
  return `k-${digest}`;
}

/**
 * Takes a command from the HTTP side: records it in Postgres, where idempotency and command
 * status live and from where a job Redis lost is queued again (with the other requests of its
 * event-loop turn: command-rows.ts); enqueues it naming this
 * process's reply channel, and waits for the answer the worker hands there (reply-channel.ts).
 * Postgres is read again only for a replay or when the wait runs out; after `waitMs` the caller
 * answers 202. If Redis refuses the job before receiving it the row is removed again: nothing
 * was taken (503). Should that removal fail, the row stays and lost-command recovery will run it,
 * so the answer is 202, not 503 (docs/COMMAND-PATH.md, "A refused job").
 */
export class CommandDispatcher implements Dispatch {
  private readonly rows: CommandRows;

  constructor(
    private readonly deps: {
      database: SqlRunner;
      queues: CommandQueues | undefined;
      waiters: AnswerWaiters | undefined;
      waitMs: number;
      /** Where a failure the answer cannot show is told (a pino logger will do). */
      log: { error(detail: object, message: string): void };
    },
  ) {
    this.rows = new CommandRows(deps.database);
  }

  async dispatch<N extends JobName>(req: DispatchRequest<N>): Promise<DispatchOutcome> {
    const { database, queues, waiters } = this.deps;
    if (!queues) throw new Unavailable();
    const commandId = commandIdFor(req.actor.brokerageId, req.idempotencyKey);
    const inserted = await this.rows.insert({
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
    // A replay's answer may go to the process that sent the job first: it looks in Postgres now and then.
    const slice = !inserted && waiters?.replyTo ? REPLAY_LOOK_MS : Infinity;
    const waiter = req.async || !waiters ? undefined : waiters.wait(commandId, Math.min(this.deps.waitMs, slice), req.signal);
    try {
      await queues.enqueue(
        req.name,
        {
          commandId,
          actor: req.actor,
          requestHash: req.requestHash,
          payload: req.payload,
          ...(req.requestId ? { requestId: req.requestId } : {}),
          ...(waiter && waiters?.replyTo ? { replyTo: waiters.replyTo } : {}),
        },
        { revive: !inserted, traceMetadata: req.traceMetadata },
      );
    } catch (err) {
      if (jobNeverSent(err)) {
        waiter?.cancel();
        // A replay's row was recorded before: lost-command recovery queues it once Redis is back.
        if (!inserted) return { kind: 'accepted', commandId };
        // Redis never saw this one: the row goes again, so the caller's 503 means nothing was taken.
        try {
          await forgetCommand(database, commandId);
        } catch (forgetErr) {
          // The row may still be there, and then recovery runs the command once Redis is back:
          // "nothing was taken" would be false, so the caller gets 202 and the Location that tells.
          countDispatchCleanupFailure();
          this.deps.log.error(
            { err: forgetErr, enqueueErr: err, commandId, command: req.name },
            'a command Redis refused could not be removed again: it may run once Redis is back; answered 202',
          );
          return { kind: 'accepted', commandId };
        }
        throw err;
      }
      // Any other failure may come after Redis stored the job and only its reply was lost: the
      // command is recorded and will run (its job, or lost-command recovery), so wait for it as
      // usual and answer its result or 202 with its Location, never "nothing changed".
    }
    if (!waiter || !waiters) return { kind: 'accepted', commandId };
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
      if (waiters.closed) return { kind: 'accepted', commandId };
      const left = deadline - Date.now();
      if (!woke || left <= 0) {
        const last = await this.result(commandId);
        if (last) return { kind: 'done', commandId, result: last };
        // A replay's job may name another process's reply channel: it looks again until the deadline.
        if (left <= 0 || req.signal?.aborted || slice === Infinity) return { kind: 'accepted', commandId };
      } else if (woke.event === 'recheck') {
        const last = await this.result(commandId);
        if (last) return { kind: 'done', commandId, result: last };
      }
      // A failed attempt that will be retried, or nothing yet: keep waiting for the next.
      current = waiters.wait(commandId, Math.min(left, slice), req.signal);
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
