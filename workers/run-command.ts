import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { isSameCommand } from '../src/commands/fingerprint.ts';
import type { Database } from '../src/db/client.ts';
import { brokerages, commands } from '../src/db/schema.ts';
import { AppError, IdempotencyConflict, InvalidParams, toErrorBody } from '../src/errors.ts';
import type { CommandResult, Envelope, JobName } from '../src/queues/job-map.ts';
import { storedPayload } from '../src/commands/stored-payload.ts';
import type { Handler, HandlerContext } from './handler.ts';

function errorResult(err: AppError): CommandResult {
  return { status: err.status, body: toErrorBody(err) };
}

/**
 * Runs one delivery of a command, exactly once in effect: one transaction records the command
 * (or finds it already finished and returns its stored result), runs the handler inside a
 * savepoint, and stores the result. A rejection rolls back the handler's writes but is still
 * stored, so it is answered the same way on every redelivery.
 */
export async function runCommand<N extends JobName>(
  database: Database,
  handler: Handler<N>,
  raw: Envelope<unknown>,
  ctx: HandlerContext,
): Promise<CommandResult> {
  const { db } = database;
  if (typeof raw?.commandId !== 'string' || typeof raw.actor?.brokerageId !== 'number' || typeof raw.requestHash !== 'string') {
    throw new Error('malformed job: the envelope needs commandId, actor.brokerageId and requestHash');
  }
  const parsed = safeParse(handler, raw);
  // An upstream job may name a brokerage that does not exist; that is bad input, not a reason
  // to retry. Not stored: the commands row would have no brokerage to belong to.
  const [acting] = await db.select({ id: brokerages.id }).from(brokerages).where(eq(brokerages.id, raw.actor.brokerageId));
  if (!acting) return errorResult(new InvalidParams(`brokerageId: no brokerage ${raw.actor.brokerageId}`, 'brokerageId'));
  await db
    .update(commands)
    .set({ status: 'running', attempts: sql`${commands.attempts} + 1` })
    .where(and(eq(commands.id, raw.commandId), inArray(commands.status, ['queued', 'failed']), isNull(commands.resultStatus)));

  return db.transaction(async (tx) => {
    await tx
      .insert(commands)
      .values({
        id: raw.commandId,
        name: handler.name,
        brokerageId: raw.actor.brokerageId,
        requestHash: raw.requestHash,
        payload: storedPayload(handler.name, raw.payload),
        actor: raw.actor,
        status: 'running',
        attempts: 1,
      })
      .onConflictDoNothing({ target: commands.id });
    // The row lock makes a concurrent redelivery of this command wait here, then see it done.
    const [row] = await tx.select().from(commands).where(eq(commands.id, raw.commandId)).for('update');
    if (!row) throw new Error(`command ${raw.commandId} vanished`);
    // Another command under a used id is a conflict, before and after the first one finished;
    // nothing is stored: the row belongs to the first command.
    if (!isSameCommand(row, { name: handler.name, brokerageId: raw.actor.brokerageId, requestHash: raw.requestHash })) {
      return errorResult(new IdempotencyConflict(`command id ${raw.commandId} was already used for another command`));
    }
    if (row.resultStatus !== null) return { status: row.resultStatus, body: row.resultBody };
    let result: CommandResult;
    if (parsed instanceof AppError) {
      result = errorResult(parsed);
    } else {
      try {
        result = await tx.transaction((sp) => handler.handle(sp, { ...raw, payload: parsed }, ctx));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        result = errorResult(err);
      }
    }
    await tx
      .update(commands)
      .set({
        status: result.status < 400 ? 'succeeded' : 'failed',
        resultStatus: result.status,
        resultBody: result.body as object,
        finishedAt: new Date(),
      })
      .where(eq(commands.id, raw.commandId));
    return result;
  });
}

function safeParse<N extends JobName>(handler: Handler<N>, raw: Envelope<unknown>) {
  try {
    return handler.parse(raw.payload);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}
