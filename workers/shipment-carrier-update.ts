import { orderNow } from '../src/db/sql/lock-order.ts';
import { carrierUpdateCommand, parseOrThrow } from '@fulfil/contract';
import { storeResult } from '../src/db/sql/store-result.ts';
import { applyCarrierEvent, CARRIER_OPENING } from '../src/domain/carrier-event.ts';
import { openShipment, sendShipmentReads } from '../src/domain/shipment-access.ts';
import { defineHandler } from './handler.ts';

/**
 * A verified carrier webhook (POST /carriers/easypost/events): its scans recorded once each, in
 * the order they happened, each applied to the shipment as the carrier's word. The event id is
 * taken once: EasyPost retries, and a retry changes nothing. The order's seller is the command's
 * actor (its lock is the seller's); the events are the system's (`carrier_scan`). Nothing refuses
 * a scan (D-152): while a cancellation is proposed it is held, applied once withdrawn; a time the
 * envelope cannot have been scanned at is replaced by the time it came, flagged. The work is
 * src/domain/carrier-event.ts, which the test mode's carrier simulator shares.
 */
export default defineHandler({
  name: 'shipment.carrier_update',
  parse: (payload) => parseOrThrow(carrierUpdateCommand, payload, 'payload'),
  open: (tx, { payload, actor }) => sendShipmentReads(tx, payload.shipment_id, actor, CARRIER_OPENING),
  async handle(tx, { payload, actor, commandId }, _ctx, opened) {
    const { order, shipment: opening } = await openShipment(tx, payload.shipment_id, actor, CARRIER_OPENING, opened);
    const { shipment, recorded, completed } = await applyCarrierEvent(tx, order, opening, payload, orderNow(order));
    const body = { recorded, state: shipment.state };
    await storeResult(tx, commandId, 200, body);
    return { status: 200, body, stored: true, ...(completed && order.hasDeadline ? { timersOf: order.id } : {}) };
  },
});
