import type { Caller } from '../auth/caller.ts';
import type { Executor } from '../db/client.ts';
import { liveShipmentOf } from './live-shipment.ts';
import { orderHoldsJson } from './holds.ts';
import { readableOrder } from './order-parties.ts';
import { shipmentReadJson } from './shipment-json.ts';

/**
 * GET /v9/orders/:id: the accept response's shape (id, oid, state, shipments) as it stands now;
 * `shipments` holds the live shipment, or nothing before the order is accepted.
 */
export async function readOrder(ex: Executor, orderId: number, caller: Pick<Caller, 'brokerageId'>) {
  const order = await readableOrder(ex, orderId, caller);
  const live = await liveShipmentOf(ex, order.id);
  return {
    id: order.id,
    oid: order.oid,
    ...order.facts,
    shipments: live ? [shipmentReadJson(live.shipment, live.contacts)] : [],
    ...(await orderHoldsJson(ex, order.id)),
  };
}
