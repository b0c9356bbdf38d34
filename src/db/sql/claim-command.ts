import type { SqlRunner } from '../client.ts';
import { sentAhead } from '../sent-ahead.ts';
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
  /** Ours to run; with no row yet, the answer's statement writes it (store-result.ts). */
  | { kind: 'claimed' }
  | { kind: 'finished'; status: number; body: unknown }
  /** The id belongs to another command (another name, brokerage or request). */
  | { kind: 'conflict' }
  /** No brokerage has the actor's id (an upstream job's bad input): nothing is stored. */
  | { kind: 'unknown-brokerage' };

type Identity = Pick<CommandClaim, 'commandId' | 'name' | 'brokerageId' | 'requestHash'>;

/**
 * The transaction-local setting that carries the claimed command's identity to the statement that
 * stores its answer (store-result.ts): a command with no row yet gets its one row there, written
 * once with its answer, and the handlers' statements need not carry the payload.
 */
export const CLAIM_SETTING = 'fulfil.claim';

/**
 * The command's lock, held until its transaction ends, with the claim's note: every delivery of a
 * command id takes it before it reads the command's row, so a second delivery waits here and then
 * finds the first one's row. An advisory lock writes nothing (a row lock wrote a LOCK record per
 * command, and needs a row to lock: a synchronous call has none until its answer). Two ids that
 * hash alike only wait for each other. A producer's receipt does not take it: one written while a
 * delivery runs makes that delivery's insert of the row fail, and the delivery runs again, then
 * answering in place (store-result.ts).
 */
const LOCK_AND_NOTE = `select pg_advisory_xact_lock(3085, hashtext($1)), set_config('${CLAIM_SETTING}', $2, true)`;

/** The claim's answer from the command's row: its stored result, and whether the row is this command's. */
const answerOf = (p: Placeholders<Identity>) =>
  `result_status as "status", result_body as "body",
  (name = ${p.name} and brokerage_id = ${p.brokerageId}::bigint and request_hash = ${p.requestHash}) as "mine"`;

/**
 * Read after the lock, in a statement of its own (its snapshot then sees whatever a delivery
 * before it committed): the command's row, or, when there is none, whether the brokerage exists.
 * The brokerage is looked up, not referenced by a foreign key: a key's check share-locks the
 * brokerage's row, and every command of a brokerage locking the same row at once made Postgres
 * write a new multixact per command (docs/DECISIONS.md). Brokerages are never deleted.
 */
const CLAIM = named<Identity>(
  (p) => `
select ${answerOf(p)} from commands where id = ${p.commandId}
union all
select null, null, true
where not exists (select 1 from commands where id = ${p.commandId}) and exists (select 1 from brokerages where id = ${p.brokerageId}::bigint)`,
);

/** The setting's value: the identity and kept payload of the command, as one JSON object. */
function claimNote(c: CommandClaim): string {
  return `{"name":${JSON.stringify(c.name)},"brokerage_id":${c.brokerageId},"request_hash":${JSON.stringify(c.requestHash)},"payload":${c.payload},"actor":${c.actor}}`;
}

type ClaimRow = { status: number | null; body: unknown; mine: boolean };

/**
 * Takes a command inside the worker's transaction, writing nothing: the command's lock, then its
 * row read (two statements, one round trip). A row a producer recorded (an asynchronous request's
 * receipt, a replay's) is answered in place; a command without one (a synchronous call, an
 * upstream job) gets its row from the statement that stores its answer, once (D-145). The attempt
 * is counted by that statement too (D-136).
 */
export async function claimCommand(tx: SqlRunner, c: CommandClaim): Promise<ClaimOutcome> {
  void sentAhead(tx.rows(LOCK_AND_NOTE, [c.commandId, claimNote(c)]));
  const [row] = await tx.rows<ClaimRow>(CLAIM.text, CLAIM.params(c));
  if (!row) return { kind: 'unknown-brokerage' };
  if (!row.mine) return { kind: 'conflict' };
  if (row.status !== null) return { kind: 'finished', status: row.status, body: row.body };
  return { kind: 'claimed' };
}
