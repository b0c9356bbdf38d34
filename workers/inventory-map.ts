import { sql } from 'drizzle-orm';
import { assertOfficeAccess } from '../src/auth/roles.ts';
import { query } from '../src/db/client.ts';
import { inventoryMapCommand, parseOrThrow, fieldPath, InvalidParams } from '@fulfil/contract';
import { refuseServiceIdConflicts } from '../src/inventory/service-id-conflicts.ts';
import { defineHandler } from './handler.ts';

/**
 * Maps (service id + event) or unmaps (both null) existing ticket groups of one office. A
 * remote_id the office does not have rejects the batch: mapping is about groups already sent,
 * and a silent skip would hide a caller's out-of-date view.
 */
export default defineHandler({
  name: 'inventory.map',
  parse: (payload) => parseOrThrow(inventoryMapCommand, payload, 'payload'),
  async handle(tx, command) {
    const { officeId, mappings } = command.payload;
    await assertOfficeAccess(tx.db, officeId, command.actor);
    const json = JSON.stringify(mappings.map((m, i) => ({ i, ...m })));
    const [missing] = await query<{ i: number; remote_id: number }>(
      tx.db,
      sql`select m.i, m.remote_id from json_to_recordset(${json}::json) as m(i integer, remote_id bigint)
          where not exists (select 1 from ticket_groups tg where tg.office_id = ${officeId}::bigint and tg.remote_id = m.remote_id)
          order by m.i limit 1`,
    );
    if (missing) {
      throw InvalidParams.at(
        fieldPath('mappings', missing.i, 'remote_id'),
        `office ${officeId} has no ticket group with remote_id ${missing.remote_id}`,
      );
    }
    await refuseServiceIdConflicts(tx.db, officeId, mappings, 'mappings');
    await query(
      tx.db,
      sql`update ticket_groups tg set id = m.id, event_id = m.event_id, updated_at = now()
          from json_to_recordset(${json}::json) as m(remote_id bigint, id bigint, event_id bigint)
          where tg.office_id = ${officeId}::bigint and tg.remote_id = m.remote_id`,
    );
    const mapped = mappings.filter((m) => m.id !== null).length;
    return { status: 200, body: { mapped, unmapped: mappings.length - mapped } };
  },
});
