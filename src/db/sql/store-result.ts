import type { SqlRunner, SqlTx } from '../client.ts';
import { CLAIM_SETTING, type CommandClaim } from './claim-command.ts';
import { named, type Placeholders } from './named-params.ts';

/**
 * The two writes that store an answer, as CTEs `a` (the row a producer recorded, updated) and `a_new`
 * (no row: the command's one row, inserted from the claim's note, claim-command.ts) of which the
 * snapshot lets exactly one write. `when`: SQL that must hold for either. Should a producer's
 * receipt commit in between, the insert fails on the key and the delivery runs again.
 * result_body is json, not jsonb: a replayed answer keeps its keys in the order they were written.
 */
function storeAnswerCtes(p: Placeholders<AnswerValues>, when: string): string {
  const status = `case when ${p.status}::int < 400 then 'succeeded' else 'failed' end`;
  return `a as (update commands set status = ${status},
    result_status = ${p.status}::int, result_body = ${p.body}::text::json, finished_at = now(), attempts = attempts + 1
    where ${when} and id = ${p.commandId} returning 1),
a_new as (insert into commands (id, name, brokerage_id, request_hash, payload, actor, status, result_status, result_body, finished_at, attempts)
    select ${p.commandId}, c->>'name', (c->>'brokerage_id')::bigint, c->>'request_hash', c->'payload', c->'actor', ${status},
      ${p.status}::int, ${p.body}::text::json, now(), 1
    from (select current_setting('${CLAIM_SETTING}', true)::jsonb as c) as claim
    where ${when} and c is not null and not exists (select 1 from a))`;
}

const STORE = named<AnswerValues>((p) => `with ${storeAnswerCtes(p, 'true')} select 1`);

/** A command's answer as a handler's last statement stores it. */
export interface Answer {
  commandId: string;
  status: number;
  body: unknown;
}

/** An answer as storeAnswerCte's parameters take it. */
export interface AnswerValues {
  commandId: string;
  status: number;
  body: string;
}

/**
 * The answer stored by the statement that makes the command's change, as one more CTE: the
 * write and its answer are one round trip. Needs the event CTE `m` of appendEventCtes.
 */
export function storeAnswerCte(p: Placeholders<AnswerValues>, onlyIf = 'true'): string {
  // Only with the event written (m): a write that changed nothing stores no answer either.
  // `onlyIf`: SQL that must hold too (a statement some callers run with no command to answer).
  return storeAnswerCtes(p, `${onlyIf} and exists (select 1 from m)`);
}

export const answerValues = (a: Answer): AnswerValues => ({ commandId: a.commandId, status: a.status, body: JSON.stringify(a.body) });

/** Stores a command's answer in the transaction that did its work and claimed it, so both commit together. */
export async function storeResult(tx: SqlTx, commandId: string, status: number, body: unknown): Promise<void> {
  await tx.finish(STORE.text, STORE.params({ commandId, status, body: JSON.stringify(body) }));
}

type Identity = Pick<CommandClaim, 'commandId' | 'name' | 'brokerageId' | 'requestHash'>;

const STORE_REJECTION = named<CommandClaim & { status: number; body: string }>(
  (p) => `
insert into commands (id, name, brokerage_id, request_hash, payload, actor, attempts, status, result_status, result_body, finished_at)
values (${p.commandId}, ${p.name}, ${p.brokerageId}::bigint, ${p.requestHash}, ${p.payload}::text::jsonb, ${p.actor}::text::jsonb, 1,
  'failed', ${p.status}::int, ${p.body}::text::json, now())
on conflict (id) do update set status = 'failed', result_status = excluded.result_status,
  result_body = excluded.result_body, finished_at = now()
  where commands.result_status is null and commands.name = excluded.name
    and commands.brokerage_id = excluded.brokerage_id and commands.request_hash = excluded.request_hash
returning result_status as "status", result_body as "body"`,
);

const STORED = named<Identity>(
  (p) => `
select result_status as "status", result_body as "body" from commands
where id = ${p.commandId} and name = ${p.name} and brokerage_id = ${p.brokerageId}::bigint and request_hash = ${p.requestHash}`,
);

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
  const [stored] = await ex.rows<{ status: number; body: unknown }>(
    STORE_REJECTION.text,
    STORE_REJECTION.params({ ...c, status, body: JSON.stringify(body) }),
  );
  if (stored) return stored;
  const [existing] = await ex.rows<{ status: number | null; body: unknown }>(STORED.text, STORED.params(c));
  return existing && existing.status !== null ? { status: existing.status, body: existing.body } : undefined;
}
