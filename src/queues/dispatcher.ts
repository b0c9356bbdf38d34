import { createHash, randomUUID } from 'node:crypto';
import type { SqlRunner } from '../db/client.ts';
import {
  findCommand,
  forgetCommand,
  insertCommand,
  requeueCommand,
  type NewCommand,
  type StoredCommand,
} from '../db/sql/insert-command.ts';
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
 * Takes a command from the HTTP side and enqueues it, naming this process's reply channel, and
 * waits for the answer the worker hands there (reply-channel.ts). A synchronous call records
 * nothing before its job: the worker writes the command's one row with its answer (D-145), and
 * if the wait runs out, the receipt is written before the caller gets 202, so a command answered
 * 202 is in Postgres, from where a job Redis lost is queued again (recover-lost.ts). An
 * asynchronous request (`Prefer: respond-async`, or no reply channel) is recorded first, with
 * the other requests of its event-loop turn (command-rows.ts). A request under a used id (an
 * Idempotency-Key again) answers from the row, or waits for it. If Redis refuses the job before
 * receiving it, nothing was taken (503): a receipt written for it is removed again; should that
 * removal fail, the row stays and lost-command recovery will run it, so the answer is 202, not
 * 503 (docs/COMMAND-PATH.md, "A refused job").
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
    const row: NewCommand = {
      id: commandId,
      name: req.name,
      brokerageId: req.actor.brokerageId,
      idempotencyKey: req.idempotencyKey ?? null,
      requestHash: req.requestHash,
      payload: JSON.stringify(storedPayload(req.name, req.payload)),
      actor: JSON.stringify(req.actor),
    };
    const identity = { name: req.name, brokerageId: req.actor.brokerageId, requestHash: req.requestHash };
    // Synchronous: answered by the worker through this process's reply channel, recorded by the answer.
    const waiting = req.async || !waiters ? undefined : waiters;
    // The row of this id from before this request (a replay); only a key can name one, a new id is random.
    let existing: StoredCommand | undefined;
    if (waiting) existing = req.idempotencyKey ? await findCommand(database, commandId) : undefined;
    else if (!(await this.rows.insert(row))) existing = await findCommand(database, commandId);
    if (existing) {
      if (!isSameCommand(existing, identity)) throw new IdempotencyConflict();
      if (existing.resultStatus !== null) {
        return { kind: 'done', commandId, result: { status: existing.resultStatus, body: existing.resultBody } };
      }
      // Still unfinished: enqueue again. A job with this id that Redis still holds makes it a
      // no-op; one that Redis lost (flushed, failed over) is given back; one whose attempts ran
      // out (status failed, no result) gets new ones.
      if (existing.status === 'failed') await requeueCommand(database, commandId);
    }
    const replay = existing !== undefined;
    // Whether Postgres holds the command now: a receipt this request wrote, or the row it replays.
    const recorded = replay || !waiting;
    // The answer of a keyed call may go to another process: one that sent the same key first and
    // whose job this one joins. Such a call looks in Postgres now and then.
    const slice = (replay || req.idempotencyKey) && waiting?.replyTo ? REPLAY_LOOK_MS : Infinity;
    const waiter = waiting?.wait(commandId, Math.min(this.deps.waitMs, slice), req.signal);
    try {
      await queues.enqueue(
        req.name,
        {
          commandId,
          actor: req.actor,
          requestHash: req.requestHash,
          payload: req.payload,
          ...(req.requestId ? { requestId: req.requestId } : {}),
          ...(waiter && waiting?.replyTo ? { replyTo: waiting.replyTo } : {}),
        },
        { revive: replay, traceMetadata: req.traceMetadata },
      );
    } catch (err) {
      if (jobNeverSent(err)) {
        waiter?.cancel();
        // A replay's row was recorded before: lost-command recovery queues it once Redis is back.
        if (replay) return { kind: 'accepted', commandId };
        // Nothing recorded, nothing sent: the caller's 503 is the truth.
        if (!recorded) throw err;
        // Redis never saw this one: the receipt goes again, so the caller's 503 means nothing was taken.
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
      // command will run (its job, or lost-command recovery once its receipt is written), so wait
      // for it as usual and answer its result or 202 with its Location, never "nothing changed".
    }
    if (!waiter || !waiting) return { kind: 'accepted', commandId };
    // 202 with a Location: the command must be in Postgres first, where its status is read and
    // from where recovery queues it again should Redis lose its job.
    const accepted = async (): Promise<DispatchOutcome> => {
      if (!recorded) {
        await insertCommand(database, row);
        const last = await this.settled(commandId, identity);
        if (last) return { kind: 'done', commandId, result: last };
      }
      return { kind: 'accepted', commandId };
    };
    const deadline = Date.now() + this.deps.waitMs;
    let current = waiter;
    // A replay may have finished between the read above and the listener: look once more.
    if (replay) {
      const finished = await this.settled(commandId, identity);
      if (finished) {
        current.cancel();
        return { kind: 'done', commandId, result: finished };
      }
    }
    for (;;) {
      const woke = await current.done;
      if (woke && woke.event === 'completed' && woke.result)
        return { kind: 'done', commandId, result: await this.answerOf(commandId, woke.result, woke.requestHash, req, identity) };
      // Shutting down: the job is in Redis and will run; the caller polls its Location.
      if (waiting.closed) return accepted();
      const left = deadline - Date.now();
      if (!woke || left <= 0) {
        const last = await this.settled(commandId, identity);
        if (last) return { kind: 'done', commandId, result: last };
        // A replay's job may name another process's reply channel: it looks again until the deadline.
        if (left <= 0 || req.signal?.aborted || slice === Infinity) return accepted();
      } else if (woke.event === 'recheck') {
        const last = await this.settled(commandId, identity);
        if (last) return { kind: 'done', commandId, result: last };
      }
      // A failed attempt that will be retried, or nothing yet: keep waiting for the next.
      current = waiting.wait(commandId, Math.min(left, slice), req.signal);
    }
  }

  /**
   * The answer a job's reply gives this request. Requests sent at once with one Idempotency-Key
   * share one job (its id is the key's), whose payload is the first one's: a request with another
   * body must not take its answer. The reply names the job's request hash; where the waiters
   * cannot tell it (BullMQ's events), a keyed request reads the command's row, which the worker
   * wrote before answering.
   */
  private async answerOf(
    commandId: string,
    result: CommandResult,
    jobRequestHash: string | undefined,
    req: { idempotencyKey?: string | undefined; requestHash: string },
    identity: Parameters<typeof isSameCommand>[1],
  ): Promise<CommandResult> {
    if (jobRequestHash !== undefined) {
      if (jobRequestHash !== req.requestHash) throw new IdempotencyConflict();
      return result;
    }
    if (!req.idempotencyKey) return result;
    return (await this.settled(commandId, identity)) ?? result;
  }

  /**
   * The stored answer of the command, when it has one. A row under the id that is another
   * command's (a key sent twice at once with different requests: the first one's job ran) is a
   * conflict, as it is when the row is found first.
   */
  private async settled(commandId: string, identity: Parameters<typeof isSameCommand>[1]): Promise<CommandResult | undefined> {
    const row = await findCommand(this.deps.database, commandId);
    if (row && !isSameCommand(row, identity)) throw new IdempotencyConflict();
    return row && row.resultStatus !== null ? { status: row.resultStatus, body: row.resultBody } : undefined;
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
