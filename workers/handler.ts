import type { Logger } from 'pino';
import type { SqlTx } from '../src/db/client.ts';
import type { CommandResult, Envelope, JobMap, JobName } from '../src/queues/job-map.ts';

export interface HandlerContext {
  log: Logger;
}

/**
 * A handler's answer. `stored: true` says its last statement already stored the answer in the
 * commands row (db/sql/store-result.ts storeAnswerCte), which saves the runner a statement.
 */
export type HandlerResult = CommandResult & { stored?: true };

/**
 * One command's handler. `handle` runs inside the transaction that claimed the command, so its
 * writes and the stored result commit together. A domain rejection is thrown as an AppError: the
 * runner rolls the transaction back and stores the rejection as the command's answer; anything
 * else is an infrastructure error and the job is retried.
 */
export interface Handler<N extends JobName = JobName> {
  readonly name: N;
  /** Jobs arrive from Redis and may come from any producer: payloads are checked again here. */
  parse(payload: unknown): JobMap[N];
  handle(tx: SqlTx, command: Envelope<JobMap[N]>, ctx: HandlerContext): Promise<HandlerResult>;
}

export function defineHandler<N extends JobName>(handler: Handler<N>): Handler<N> {
  return handler;
}
