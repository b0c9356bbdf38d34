import { withMode } from '../read/answer-mode.ts';
import { applyShipmentEvent, type PersistedShipment } from '../../machines/index.ts';
import { InvalidParams, InvalidTransition, type Actor, type CompleteCommand } from '@fulfil/contract';
import type { SqlTx } from '../db/client.ts';
import type { ShipmentRow } from '../db/ops/shipment-rows.ts';
import type { LockedOrder } from '../db/sql/lock-order.ts';
import { addressRow, moveMailedShipment } from '../db/sql/mailed-shipment.ts';
import { mailedShipmentJson } from './shipment-response.ts';
import { planScans } from '../sandbox/carrier-simulator.ts';

/**
 * PUT /v9/shipments/:id/complete on a mailed shipment means "shipped": the envelope is with the
 * carrier, the shipment goes to in_transit, and the order waits for the delivery scan. It needs
 * the tracking number first (422 naming the call that sets it).
 */
export async function shipMailed(
  tx: SqlTx,
  c: {
    order: LockedOrder;
    shipment: ShipmentRow;
    role: 'seller' | 'buyer';
    payload: CompleteCommand;
    actor: Actor;
    commandId: string;
    /** The carrier simulator's wall-clock step (SANDBOX_CARRIER_STEP). */
    carrierStepMs?: number | undefined;
  },
) {
  const { shipment, payload } = c;
  const field = payload.x_mobile_link !== undefined ? 'x_mobile_link' : payload.tickets !== undefined ? 'tickets' : undefined;
  if (field)
    throw new InvalidParams(`${field}: a ${shipment.type} shipment is completed without it (mailed: complete means shipped)`, field);
  const result = applyShipmentEvent(shipment.snapshot as PersistedShipment, {
    type: 'SHIP',
    hasTracking: shipment.trackingNumber !== null,
  });
  if (!result.ok) {
    if (shipment.state === 'pending' && shipment.trackingNumber === null) {
      throw new InvalidTransition(
        `shipment ${shipment.id} has no tracking number: set it with PUT /v9/shipments/${shipment.id}/tracking or POST /v9/shipments/${shipment.id}/airbill, then complete`,
      );
    }
    throw new InvalidTransition(result.reason);
  }
  const next = { ...shipment, state: result.view.state, snapshot: result.snapshot };
  const body = withMode(mailedShipmentJson(next, { shipToAddress: await addressRow(tx, shipment.shipToAddressId) }), c.order);
  await moveMailedShipment(tx, {
    old: shipment,
    next,
    orderCompletion: null,
    event: {
      kind: 'in_transit',
      actor: { brokerageId: c.actor.brokerageId, userId: c.actor.userId, role: c.role },
      commandId: c.commandId,
      details: { shipped_by: 'seller', tracking_number: shipment.trackingNumber },
    },
    answer: { commandId: c.commandId, status: 200, body },
  });
  // A test shipment with a test code: the simulator's scans, armed after the commit (timersOf).
  const planned = await planScans(
    tx,
    { orderId: c.order.id, shipmentId: shipment.id, trackingNumber: shipment.trackingNumber, livemode: c.order.livemode },
    c.carrierStepMs,
  );
  return { status: 200, body, stored: true as const, ...(planned ? { timersOf: c.order.id } : {}) };
}
