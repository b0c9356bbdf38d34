import type { SqlRunner } from '../client.ts';
import { named, type Placeholders } from './named-params.ts';

export interface CommandClaim {
  commandId: string;
  name: string;
  brokerageId: number;
  requestHash: string;
  /** JSON of what commands.payload keeps (stored-payload.ts) and of the actor. */
  payload: string;
  actor: string;
}

export type ClaimOutcome =
  | { kind: 'claimed' }
  | { kind: 'finished'; status: number; body: unknown }
  /** The id belongs to another command (another name, brokerage or request). */
  | { kind: 'conflict' }
  /** No brokerage has the actor's id (an upstream job's bad input): nothing is stored. */
  | { kind: 'unknown-brokerage' };

type Identity = Pick<CommandClaim, 'commandId' | 'name' | 'brokerageId' | 'requestHash'>;

/** The claim's answer from the command's row: its stored result, and whether the row is this command's. */
const answerOf = (p: Placeholders<Identity>) =>
  `result_status as "status", result_body as "body",
  (name = ${p.name} and brokerage_id = ${p.brokerageId}::bigint and request_hash = ${p.requestHash}) as "mine"`;

/**
 * Takes a command inside the worker's transaction, in one statement that writes no row version:
 * the row is locked (FOR UPDATE), so a concurrent redelivery of the same command waits here and
 * then finds it finished; it is inserted only when no producer wrote it (upstream jobs). Whether
 * it is this command (name, brokerage, request) is read from the locked row. The attempt is
 * counted by the statement that stores the answer (store-result.ts), which commits with the
 * work: a claim used to count it with an update of its own, a second row version per command
 * (docs/DECISIONS.md D-136).
 *
 * The brokerage is looked up, not referenced by a foreign key: a key's check share-locks the
 * brokerage's row, and every command of a brokerage locking the same row at once made Postgres
 * write a new multixact per command (docs/DECISIONS.md). Brokerages are never deleted, so a
 * plain read answers the same question.
 */
const CLAIM = named<CommandClaim>(
  (p) => `
with l as (
  select name, brokerage_id, request_hash, result_status, result_body from commands where id = ${p.commandId} for update
),
i as (
  insert into commands (id, name, brokerage_id, request_hash, payload, actor)
  select ${p.commandId}, ${p.name}, ${p.brokerageId}::bigint, ${p.requestHash}, ${p.payload}::text::jsonb, ${p.actor}::text::jsonb
  where not exists (select 1 from l) and exists (select 1 from brokerages where id = ${p.brokerageId}::bigint)
  on conflict (id) do nothing
  returning 1
)
select ${answerOf(p)}
from l
union all
select null, null, true from i`,
);

// The row as the claim reads it, after a concurrent insert of the same id won (see claimCommand).
const RELOCK = named<Identity>(
  (p) => `
select ${answerOf(p)}
from commands where id = ${p.commandId} for update`,
);

/** Only when the claim found nothing: no such brokerage, or another command's id. */
const BROKERAGE_EXISTS = `select 1 as "one" from brokerages where id = $1::bigint`;

type ClaimRow = { status: number | null; body: unknown; mine: boolean };

function outcome(row: ClaimRow): ClaimOutcome {
  if (!row.mine) return { kind: 'conflict' };
  return row.status === null ? { kind: 'claimed' } : { kind: 'finished', status: row.status, body: row.body };
}

export async function claimCommand(tx: SqlRunner, c: CommandClaim): Promise<ClaimOutcome> {
  const [row] = await tx.rows<ClaimRow>(CLAIM.text, CLAIM.params(c));
  if (row) return outcome(row);
  // Nothing locked and nothing inserted: the brokerage is unknown, or another delivery of an
  // upstream job inserted the row after this statement's snapshot (the insert waited for it and
  // did nothing). A new statement sees that row, committed.
  const [again] = await tx.rows<ClaimRow>(RELOCK.text, RELOCK.params(c));
  if (again) return outcome(again);
  const [brokerage] = await tx.rows<{ one: number }>(BROKERAGE_EXISTS, [c.brokerageId]);
  return brokerage ? { kind: 'conflict' } : { kind: 'unknown-brokerage' };
}
