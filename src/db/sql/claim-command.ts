import type { SqlRunner } from '../client.ts';
import { named } from './named-params.ts';

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

/**
 * Takes a command inside the worker's transaction, in one statement: the row is inserted when no
 * producer wrote it (upstream jobs), and in every case locked, so a concurrent redelivery of the
 * same command waits here and then finds it finished. The identity check sits in the conflict
 * clause: a row of another command is neither updated nor returned.
 *
 * The brokerage is looked up, not referenced by a foreign key: a key's check share-locks the
 * brokerage's row, and every command of a brokerage locking the same row at once made Postgres
 * write a new multixact per command (docs/DECISIONS.md). Brokerages are never deleted, so a
 * plain read answers the same question.
 */
const CLAIM = named<CommandClaim>(
  (p) => `
insert into commands (id, name, brokerage_id, request_hash, payload, actor, attempts)
select ${p.commandId}, ${p.name}, ${p.brokerageId}::bigint, ${p.requestHash}, ${p.payload}::text::jsonb, ${p.actor}::text::jsonb, 1
where exists (select 1 from brokerages where id = ${p.brokerageId}::bigint)
on conflict (id) do update set attempts = commands.attempts + (commands.result_status is null)::int
  where commands.name = excluded.name and commands.brokerage_id = excluded.brokerage_id
    and commands.request_hash = excluded.request_hash
returning result_status as "status", result_body as "body"`,
);

/** Only when the claim found nothing: another command's id, or no such brokerage. */
const BROKERAGE_EXISTS = `select 1 as "one" from brokerages where id = $1::bigint`;

export async function claimCommand(tx: SqlRunner, c: CommandClaim): Promise<ClaimOutcome> {
  const [row] = await tx.rows<{ status: number | null; body: unknown }>(CLAIM.text, CLAIM.params(c));
  if (!row) {
    const [brokerage] = await tx.rows<{ one: number }>(BROKERAGE_EXISTS, [c.brokerageId]);
    return brokerage ? { kind: 'conflict' } : { kind: 'unknown-brokerage' };
  }
  return row.status === null ? { kind: 'claimed' } : { kind: 'finished', status: row.status, body: row.body };
}
