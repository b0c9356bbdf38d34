import { sql } from 'drizzle-orm';
import { assertOfficeAccess } from '../src/auth/roles.ts';
import { query } from '../src/db/client.ts';
import { inventoryRemoveCommand, parseOrThrow } from '@fulfil/contract';
import { defineHandler } from './handler.ts';

/**
 * Deletes ticket groups of one office by remote_id; their seats go with them (on delete cascade).
 * A remote_id the office does not have is not an error: removal is idempotent, and `removed`
 * counts the groups that were actually there.
 */
export default defineHandler({
  name: 'inventory.remove',
  parse: (payload) => parseOrThrow(inventoryRemoveCommand, payload, 'payload'),
  async handle(tx, command) {
    const { officeId, remoteIds } = command.payload;
    await assertOfficeAccess(tx.db, officeId, command.actor);
    const [row] = await query<{ n: number }>(
      tx.db,
      sql`with d as (delete from ticket_groups where office_id = ${officeId}::bigint
                     and remote_id = any(${`{${remoteIds.join(',')}}`}::bigint[]) returning 1)
          select count(*)::int as n from d`,
    );
    return { status: 200, body: { removed: Number(row!.n) } };
  },
});
