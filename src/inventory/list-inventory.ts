import type { Caller } from '../auth/caller.ts';
import { assertOfficeAccess } from '../auth/roles.ts';
import type { Database } from '../db/client.ts';
import { parseIndexQuery, type RawQuery } from './index-query.ts';
import { readInventoryPageBytes } from './read-inventory.ts';

/**
 * One page of `GET /v9/inventory` as JSON text (bytes as Postgres sent them on postgres.js).
 * The order is the rule: validation first, since its answers depend only on the query and so
 * reveal nothing about which offices exist; then the office check, which answers 401 alike for a
 * foreign office and a missing one (docs/API.md §Roles and tenancy); only then the read.
 */
export async function listInventoryPage(
  database: Database,
  caller: Pick<Caller, 'brokerageId'>,
  rawQuery: RawQuery,
): Promise<Buffer | string> {
  const query = parseIndexQuery(rawQuery);
  await assertOfficeAccess(database.db, query.officeId, caller);
  return readInventoryPageBytes(database, query);
}
