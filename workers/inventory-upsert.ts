import { assertOfficeAccess } from '../src/auth/roles.ts';
import { inventoryUpsertCommand, parseOrThrow } from '@fulfil/contract';
import { refuseServiceIdConflicts } from '../src/inventory/service-id-conflicts.ts';
import { upsertTicketGroups } from '../src/inventory/upsert-ticket-groups.ts';
import { defineHandler } from './handler.ts';

/**
 * Writes a batch of ticket groups of one office: each record inserted or replaced by remote_id,
 * its seats replaced as a whole. A bad record rejects the whole batch, naming its index.
 */
export default defineHandler({
  name: 'inventory.upsert',
  parse: (payload) => parseOrThrow(inventoryUpsertCommand, payload, 'payload'),
  async handle(tx, command) {
    const { officeId, records } = command.payload;
    await assertOfficeAccess(tx.db, officeId, command.actor);
    await refuseServiceIdConflicts(tx.db, officeId, records, 'records');
    const upserted = await upsertTicketGroups(tx.db, officeId, records);
    return { status: 200, body: { upserted } };
  },
});
