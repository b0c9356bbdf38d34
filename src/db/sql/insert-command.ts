import type { SqlRunner } from '../client.ts';
import { named } from './named-params.ts';

export interface NewCommand {
  id: string;
  name: string;
  brokerageId: number;
  idempotencyKey: string | null;
  requestHash: string;
  /** JSON of what commands.payload keeps, and of the actor. */
  payload: string;
  actor: string;
}

// The producer's one statement per command: a replay under a used id inserts nothing.
const INSERT = named<NewCommand>(
  (p) => `
insert into commands (id, name, brokerage_id, idempotency_key, request_hash, payload, actor)
values (${p.id}, ${p.name}, ${p.brokerageId}::bigint, ${p.idempotencyKey}, ${p.requestHash}, ${p.payload}::text::jsonb, ${p.actor}::text::jsonb)
on conflict do nothing
returning id`,
);

/** Records a command before its job is queued; false when its id (or key) is taken already. */
export async function insertCommand(ex: SqlRunner, c: NewCommand): Promise<boolean> {
  const rows = await ex.rows(INSERT.text, INSERT.params(c));
  return rows.length > 0;
}

// Several requests' rows in one statement (src/queues/command-rows.ts); ids are unique within it.
const INSERT_MANY = `
insert into commands (id, name, brokerage_id, idempotency_key, request_hash, payload, actor)
select r.id, r.name, r.brokerage_id, r.idempotency_key, r.request_hash, r.payload::jsonb, r.actor::jsonb
from unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[])
  as r(id, name, brokerage_id, idempotency_key, request_hash, payload, actor)
on conflict do nothing
returning id`;

/** Records several commands in one statement; resolves with the ids that were new. */
export async function insertCommands(ex: SqlRunner, cs: readonly NewCommand[]): Promise<Set<string>> {
  const column = <K extends keyof NewCommand>(k: K) => cs.map((c) => c[k]);
  const params = [
    column('id'),
    column('name'),
    column('brokerageId'),
    column('idempotencyKey'),
    column('requestHash'),
    column('payload'),
    column('actor'),
  ];
  const rows = await ex.rows<{ id: string }>(INSERT_MANY, params);
  return new Set(rows.map((r) => r.id));
}

export interface StoredCommand {
  name: string;
  brokerageId: number;
  requestHash: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  resultStatus: number | null;
  resultBody: unknown;
}

const FIND = `
select name, brokerage_id as "brokerageId", request_hash as "requestHash", status,
  result_status as "resultStatus", result_body as "resultBody"
from commands where id = $1`;

export async function findCommand(ex: SqlRunner, id: string): Promise<StoredCommand | undefined> {
  const [row] = await ex.rows<StoredCommand>(FIND, [id]);
  return row;
}

// A replayed command whose attempts ran out (failed, no result) gets new ones.
const REQUEUE = `update commands set status = 'queued', finished_at = null where id = $1 and result_status is null`;

export async function requeueCommand(ex: SqlRunner, id: string): Promise<void> {
  await ex.rows(REQUEUE, [id]);
}

// Redis refused the job: the row goes again, so the caller's 503 means nothing was taken.
const FORGET = `delete from commands where id = $1 and status = 'queued'`;

export async function forgetCommand(ex: SqlRunner, id: string): Promise<void> {
  await ex.rows(FORGET, [id]);
}
