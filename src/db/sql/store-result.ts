import type { SqlRunner, SqlTx } from '../client.ts';
import type { CommandClaim } from './claim-command.ts';

// result_body is json, not jsonb: a replayed answer keeps its keys in the order they were written.
const STORE = `
update commands set status = $2, result_status = $3::int, result_body = $4::text::json, finished_at = now()
where id = $1`;

/** A command's answer as a handler's last statement stores it. */
export interface Answer {
  commandId: string;
  status: number;
  body: unknown;
}

/**
 * The answer stored by the statement that makes the command's change, as one more CTE: the
 * write and its answer are one round trip. Params: the command id, the status, the body (JSON).
 * Needs the event CTE `m` of appendEventCtes.
 */
export function storeAnswerCte(id: string, status: string, body: string): string {
  // Only with the event written (m): a write that changed nothing stores no answer either.
  return `a as (update commands set status = case when ${status}::int < 400 then 'succeeded' else 'failed' end,
    result_status = ${status}::int, result_body = ${body}::text::json, finished_at = now()
    where id = ${id} and exists (select 1 from m))`;
}

export const answerParams = (a: Answer) => [a.commandId, a.status, JSON.stringify(a.body)];

/** Stores a command's answer in the transaction that did its work, so both commit together. */
export async function storeResult(tx: SqlTx, commandId: string, status: number, body: unknown): Promise<void> {
  await tx.finish(STORE, [commandId, status < 400 ? 'succeeded' : 'failed', status, JSON.stringify(body)]);
}

const STORE_REJECTION = `
insert into commands (id, name, brokerage_id, request_hash, payload, actor, attempts, status, result_status, result_body, finished_at)
values ($1, $2, $3::bigint, $4, $5::text::jsonb, $6::text::jsonb, 1, 'failed', $7::int, $8::text::json, now())
on conflict (id) do update set status = 'failed', result_status = excluded.result_status,
  result_body = excluded.result_body, finished_at = now()
  where commands.result_status is null and commands.name = excluded.name
    and commands.brokerage_id = excluded.brokerage_id and commands.request_hash = excluded.request_hash
returning result_status as "status", result_body as "body"`;

const STORED = `
select result_status as "status", result_body as "body" from commands
where id = $1 and name = $2 and brokerage_id = $3::bigint and request_hash = $4`;

/**
 * Stores a rejection after its transaction rolled back (the handler's writes are undone, the
 * answer is kept), unless another delivery stored an answer first: then that one is returned,
 * so every delivery of a command answers the same. Undefined means the id belongs to another
 * command.
 */
export async function storeRejection(
  ex: SqlRunner,
  c: CommandClaim,
  status: number,
  body: unknown,
): Promise<{ status: number; body: unknown } | undefined> {
  const [stored] = await ex.rows<{ status: number; body: unknown }>(STORE_REJECTION, [
    c.commandId,
    c.name,
    c.brokerageId,
    c.requestHash,
    c.payload,
    c.actor,
    status,
    JSON.stringify(body),
  ]);
  if (stored) return stored;
  const [existing] = await ex.rows<{ status: number | null; body: unknown }>(STORED, [c.commandId, c.name, c.brokerageId, c.requestHash]);
  return existing && existing.status !== null ? { status: existing.status, body: existing.body } : undefined;
}
