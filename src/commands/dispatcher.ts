import { createHash, randomUUID } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { commands } from '../db/schema.ts';
import { IdempotencyConflict, Unavailable } from '../errors.ts';
import type { CommandQueues } from '../queues/command-queues.ts';
import type { Actor, CommandResult, JobMap, JobName } from '../queues/job-map.ts';
import type { CommandWaiters } from '../queues/waiters.ts';
import { isSameCommand } from './fingerprint.ts';
import { storedPayload } from './stored-payload.ts';

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

export type DispatchOutcome =
  | { kind: 'done'; commandId: string; result: CommandResult }
  | { kind: 'accepted'; commandId: string };

/** A command id derived from the caller's key, so a retry maps to the same job and row. */
export function commandIdFor(brokerageId: number, idempotencyKey?: string): string {
  if (!idempotencyKey) return `c-${randomUUID()}`;
  const digest = createHash('sha256').update(`${brokerageId}\n${idempotencyKey}`).digest('hex').slice(0, 40);
  return `k-${digest}`;
}

/**
 * Takes a command from the HTTP side: records it in Postgres (which is where idempotency and
 * command status live), enqueues it, and waits for its result up to `waitMs`, after which the
 * caller answers 202. If Redis refuses the job the row is removed again: nothing was taken.
 */
export class CommandDispatcher {
  constructor(
    private readonly deps: {
      database: Database;
      queues: CommandQueues | undefined;
      waiters: CommandWaiters | undefined;
      waitMs: number;
    },
  ) {}

  async dispatch<N extends JobName>(req: DispatchRequest<N>): Promise<DispatchOutcome> {
    const { db } = this.deps.database;
    const commandId = commandIdFor(req.actor.brokerageId, req.idempotencyKey);
    const inserted = await db
      .insert(commands)
      .values({
        id: commandId,
        name: req.name,
        brokerageId: req.actor.brokerageId,
        idempotencyKey: req.idempotencyKey ?? null,
        requestHash: req.requestHash,
        payload: storedPayload(req.name, req.payload),
        actor: req.actor,
      })
      .onConflictDoNothing()
      .returning({ id: commands.id });
    if (inserted.length === 0) {
      const [existing] = await db.select().from(commands).where(eq(commands.id, commandId));
      if (!existing || !isSameCommand(existing, { name: req.name, brokerageId: req.actor.brokerageId, requestHash: req.requestHash })) {
        throw new IdempotencyConflict();
      }
      if (existing.resultStatus !== null) {
        return { kind: 'done', commandId, result: { status: existing.resultStatus, body: existing.resultBody } };
      }
      // Still unfinished: enqueue again. A job with this id that Redis still holds makes it a
      // no-op; one that Redis lost (flushed, failed over) is given back; one whose attempts ran
      // out (status failed, no result) gets new ones.
      if (existing.status === 'failed') {
        await db.update(commands).set({ status: 'queued', finishedAt: null }).where(and(eq(commands.id, commandId), isNull(commands.resultStatus)));
      }
    }
    const { queues, waiters } = this.deps;
    if (!queues) throw new Unavailable();
    const waiter = req.async || !waiters ? undefined : waiters.wait(commandId, this.deps.waitMs, req.signal);
    try {
      await queues.enqueue(
        req.name,
        {
          commandId, actor: req.actor, requestHash: req.requestHash, payload: req.payload,
          ...(req.requestId ? { requestId: req.requestId } : {}),
        },
        { revive: inserted.length === 0 },
      );
    } catch (err) {
      waiter?.cancel();
      if (inserted.length > 0) {
        await db.delete(commands).where(and(eq(commands.id, commandId), eq(commands.status, 'queued'))).catch(() => {});
      }
      throw err;
    }
    if (!waiter) return { kind: 'accepted', commandId };
    const deadline = Date.now() + this.deps.waitMs;
    let current = waiter;
    for (;;) {
      const finished = await this.result(commandId);
      if (finished) {
        current.cancel();
        return { kind: 'done', commandId, result: finished };
      }
      const woke = await current.done;
      const left = deadline - Date.now();
      // Shutting down: the job is in Redis and will run; the caller polls its Location.
      if (waiters!.closed) return { kind: 'accepted', commandId };
      if (!woke || left <= 0) {
        const last = await this.result(commandId);
        return last ? { kind: 'done', commandId, result: last } : { kind: 'accepted', commandId };
      }
      // Woken by a failed attempt that will be retried, or by a stale event: keep waiting.
      current = waiters!.wait(commandId, left, req.signal);
    }
  }

  /** Whether the command's job used up its attempts without a result (see mark-exhausted.ts). */
  async exhausted(commandId: string): Promise<boolean> {
    const [row] = await this.deps.database.db
      .select({ status: commands.status, result: commands.resultStatus })
      .from(commands)
      .where(eq(commands.id, commandId));
    return row?.status === 'failed' && row.result === null;
  }

  async result(commandId: string): Promise<CommandResult | undefined> {
    const [row] = await this.deps.database.db
      .select({ status: commands.resultStatus, body: commands.resultBody })
      .from(commands)
      .where(eq(commands.id, commandId));
    return row && row.status !== null ? { status: row.status, body: row.body } : undefined;
  }
}
