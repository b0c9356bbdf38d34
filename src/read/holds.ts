import type { Caller } from '../auth/caller.ts';
import type { Database, Executor } from '../db/client.ts';
import { activeHoldsVia, holdsOfOrder } from '../db/sql/holds.ts';
import { holdJson } from '../domain/hold-json.ts';
import { readableOrder } from './order-parties.ts';

/** GET /v9/orders/:id/holds: both parties read every hold and its reason; anyone else 404. */
export async function readHoldsOfOrder(database: Pick<Database, 'db' | 'rows'>, orderId: number, caller: Pick<Caller, 'brokerageId'>) {
  await readableOrder(database.db, orderId, caller);
  return { holds: (await holdsOfOrder(database, orderId)).map(holdJson) };
}

/** What the order answer says of its holds: the active ones, and whether there is any. */
export async function orderHoldsJson(ex: Executor, orderId: number) {
  const holds = (await activeHoldsVia(ex, orderId)).map(holdJson);
  return { holds, on_hold: holds.length > 0 };
}
