import { sql } from 'drizzle-orm';
import { query, type Executor } from '../db/client.ts';
import { fieldPath, InvalidParams } from '@fulfil/contract';

export interface ServiceIdClaim {
  remote_id: number;
  id: number | null;
}

/**
 * Refuses a batch in which a record claims a service id that another ticket group holds (in any
 * office: ids are unique service-wide). The record is named by its index; the holder is not, as it
 * may belong to another brokerage. A ticket group of this very batch counts as "another" too, so
 * an id moves to a new remote_id only after an earlier command has released it: the outcome then
 * never depends on the order rows are written in.
 */
export async function refuseServiceIdConflicts(
  tx: Executor,
  officeId: number,
  claims: readonly ServiceIdClaim[],
  list: string,
): Promise<void> {
  const wanted = claims.flatMap((c, i) => (c.id === null ? [] : [{ i, remote_id: c.remote_id, id: c.id }]));
  if (wanted.length === 0) return;
  const [conflict] = await query<{ i: number; id: number }>(
    tx,
    sql`select c.i, c.id from json_to_recordset(${JSON.stringify(wanted)}::json) as c(i integer, remote_id bigint, id bigint)
        join ticket_groups tg on tg.id = c.id
        where not (tg.office_id = ${officeId}::bigint and tg.remote_id = c.remote_id)
        order by c.i limit 1`,
  );
  if (conflict) {
    throw InvalidParams.at(fieldPath(list, conflict.i, 'id'), `service id ${conflict.id} is already used by another ticket group`);
  }
}
