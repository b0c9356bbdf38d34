import { answerOutcome } from '../src/commands/command-outcome.ts';
import { subjectOf, traced, tracedTransaction, type TraceSpan } from '../src/telemetry/tracing.ts';
import type { Database } from '../src/db/client.ts';
import { claimCommand } from '../src/db/sql/claim-command.ts';
import { commandClaimOf } from '../src/commands/command-claim.ts';
import { storeRejection, storeResult } from '../src/db/sql/store-result.ts';
import { AppError, IdempotencyConflict, InvalidParams, toErrorBody } from '@fulfil/contract';
import type { CommandResult, Envelope, JobName } from '@fulfil/contract';
import type { Handler, HandlerContext, HandlerResult } from './handler.ts';

function errorResult(err: AppError): CommandResult {
  return { status: err.status, body: toErrorBody(err) };
}

const conflict = (commandId: string) =>
  errorResult(new IdempotencyConflict(`command id ${commandId} was already used for another command`));

/** The answer, and the order whose deadline timers the committed command changed (HandlerResult). */
export type RunResult = CommandResult & { timersOf?: number };

/** Thrown inside the transaction to roll it back and answer with the rejection. */
class Rejected extends Error {
  constructor(readonly error: AppError) {
    super(error.message);
  }
}

/**
 * Thrown inside the transaction when the claim finds the command not ours to run (finished, or
 * another command's id): the transaction is rolled back, so whatever the handler's `open` sent
 * ahead with the claim (contact rows, say) is undone, and the answer is given as it stands.
 */
class NotClaimed extends Error {
  constructor(readonly result: RunResult) {
    super('command not claimed');
  }
}

/**
 * Runs one delivery of a command, exactly once in effect. One transaction claims the command
 * (or finds it finished and answers its stored result), runs the handler and stores the result:
 * BEGIN, claim and the handler's first statements (one round trip), the handler's statements
 * (the last of which usually stores the answer), COMMIT; a command found finished, or not this
 * one, rolls back what was sent with its claim. A domain rejection rolls the handler's
 * writes back with the transaction and is then stored on its own, so every later delivery
 * answers it the same way.
 */
export async function runCommand<N extends JobName>(
  database: Database,
  handler: Handler<N>,
  raw: Envelope<unknown>,
  ctx: HandlerContext,
  traceMetadata?: string,
): Promise<RunResult> {
  // A child of the request's span (the context the job carried); the transaction is its child.
  return traced(
    `command ${handler.name}`,
    { metadata: traceMetadata },
    () =>
      subjectOf(raw?.payload, {
        'messaging.system': 'bullmq',
        'fulfil.command': handler.name,
        'fulfil.command_id': String(raw?.commandId),
      }),
    async (span) => {
      const result = await runOnce(database, handler, raw, ctx, span);
      span?.setAttributes({ 'fulfil.outcome': answerOutcome(result.status), 'fulfil.result_status': result.status });
      return result;
    },
    { consumer: true },
  );
}

async function runOnce<N extends JobName>(
  database: Database,
  handler: Handler<N>,
  raw: Envelope<unknown>,
  ctx: HandlerContext,
  span: TraceSpan | undefined,
): Promise<RunResult> {
  if (typeof raw?.commandId !== 'string' || typeof raw.actor?.brokerageId !== 'number' || typeof raw.requestHash !== 'string') {
    throw new Error('malformed job: the envelope needs commandId, actor.brokerageId and requestHash');
  }
  const parsed = safeParse(handler, raw);
  const claim = commandClaimOf(handler.name, raw);
  try {
    return await tracedTransaction(database, span, async (tx) => {
      const claiming = claimCommand(tx, claim);
      const command = parsed instanceof AppError ? undefined : { ...raw, payload: parsed };
      // The handler's first reads leave behind the claim in the same round trip; Postgres runs
      // them after it, so a redelivery still waits on the claim before it reads anything.
      const opened = command && handler.open?.(tx, command);
      const claimed = await claiming;
      // Another command under a used id is a conflict, before and after the first one finished;
      // nothing is stored: the row belongs to the first command.
      if (claimed.kind === 'conflict') throw new NotClaimed(conflict(raw.commandId));
      // An upstream job may name a brokerage that does not exist: bad input, not a reason to
      // retry. Not stored: the commands row would have no brokerage to belong to.
      if (claimed.kind === 'unknown-brokerage') throw new NotClaimed(unknownBrokerage(raw.actor.brokerageId));
      if (claimed.kind === 'finished') throw new NotClaimed({ status: claimed.status, body: claimed.body });
      if (!command) throw new Rejected(parsed as AppError);
      let result: HandlerResult;
      try {
        result = await handler.handle(tx, command, ctx, opened);
      } catch (err) {
        throw err instanceof AppError ? new Rejected(err) : err;
      }
      if (!result.stored) await storeResult(tx, raw.commandId, result.status, result.body);
      return { status: result.status, body: result.body, ...(result.timersOf ? { timersOf: result.timersOf } : {}) };
    });
  } catch (err) {
    if (err instanceof NotClaimed) return err.result;
    if (!(err instanceof Rejected)) throw err;
    const rejection = errorResult(err.error);
    const stored = await storeRejection(database, claim, rejection.status, rejection.body);
    return stored ?? conflict(raw.commandId);
  }
}

const unknownBrokerage = (brokerageId: number) => errorResult(new InvalidParams(`brokerageId: no brokerage ${brokerageId}`, 'brokerageId'));

function safeParse<N extends JobName>(handler: Handler<N>, raw: Envelope<unknown>) {
  try {
    return handler.parse(raw.payload);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}
