import type { Logger } from 'pino';
import type { DeadlinePolicy } from '../src/domain/deadline-policy.ts';
import type { SqlTx } from '../src/db/client.ts';
import type { CommandResult, Envelope, JobMap, JobName } from '@fulfil/contract';

export interface HandlerContext {
  log: Logger;
  /** How an order's deadline follows from its in-hand date (DEADLINE_* settings). */
  deadlines: DeadlinePolicy;
}

/**
 * A handler's answer. `stored: true` says its last statement already stored the answer in the
 * commands row (db/sql/store-result.ts storeAnswerCte), which saves the runner a statement.
 */
export type HandlerResult = CommandResult & {
  stored?: true;
  /** The order whose deadline timers changed: armed or removed after the commit, from what Postgres holds (src/timers/). */
  timersOf?: number;
};

/**
 * One command's handler. `handle` runs inside the transaction that claimed the command, so its
 * writes and the stored result commit together. A domain rejection is thrown as an AppError: the
 * runner rolls the transaction back and stores the rejection as the command's answer; anything
 * else is an infrastructure error and the job is retried.
 */
export interface Handler<N extends JobName = JobName, Opened = unknown> {
  readonly name: N;
  /** Jobs arrive from Redis and may come from any producer: payloads are checked again here. */
  parse(payload: unknown): JobMap[N];
  /**
   * Optional: sends the handler's first statements (the order's lock, the rows it reads, and
   * inserts of new rows nothing refers to yet, such as contact rows) without awaiting them, so
   * they leave with the claim in one round trip, and returns their pending results for `handle`.
   * Each pending result must already swallow its own rejection (src/db/sent-ahead.ts): when the
   * claim finds the command finished or not ours, they are dropped unread and the transaction is
   * rolled back, its lock and inserts with it; so is it when `handle` refuses the command.
   */
  open?(tx: SqlTx, command: Envelope<JobMap[N]>): Opened;
  /** `opened`: what `open` returned, undefined when the runner did not call it (then handle sends them itself). */
  handle(tx: SqlTx, command: Envelope<JobMap[N]>, ctx: HandlerContext, opened?: Opened): Promise<HandlerResult>;
}

export function defineHandler<N extends JobName, Opened = unknown>(handler: Handler<N, Opened>): Handler<N, Opened> {
  return handler;
}
