import { and, eq } from 'drizzle-orm';
import { initialShipmentSnapshot, shipmentView } from '../machines/index.ts';
import { orderRole } from '../src/auth/roles.ts';
import { appendShipmentEvent } from '../src/db/ops/append-shipment-event.ts';
import { insertEmailAddress } from '../src/db/ops/contacts.ts';
import { findOrder, lockOrder } from '../src/db/ops/lock-order.ts';
import { insertShipment } from '../src/db/ops/shipment-rows.ts';
import { users } from '../src/db/schema.ts';
import { acceptCommand } from '../src/domain/order-accept-input.ts';
import { transitionOrder } from '../src/domain/order-transition.ts';
import { acceptedShipmentJson } from '../src/domain/shipment-response.ts';
import { parseOrThrow } from '../src/domain/validation.ts';
import { Forbidden, InvalidParams, NotFound } from '../src/errors.ts';
import { defineHandler } from './handler.ts';

/** The shipment an accepted order starts with, by its delivery method (docs/API.md §Orders). */
const FIRST_SHIPMENT_TYPE = { flash: 'XSeats', local_pickup: 'LocalPickup', tbd: 'TBD' } as const;

export default defineHandler({
  name: 'order.accept',
  parse: (payload) => parseOrThrow(acceptCommand, payload, 'payload'),
  async handle(tx, { payload, actor, commandId }) {
    const party = await findOrder(tx, payload.order_id);
    const role = party ? orderRole(actor, party) : 'stranger';
    if (role === 'stranger') throw new NotFound(`order ${payload.order_id} not found`);
    if (role !== 'seller') throw new Forbidden('only the seller may accept an order');
    const order = (await lockOrder(tx, payload.order_id))!;

    const [reviewer] = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, payload.reviewer_id), eq(users.brokerageId, actor.brokerageId)));
    if (!reviewer) throw new InvalidParams('reviewer_id: must be a user of your brokerage', 'reviewer_id');
    if (payload.seats && payload.seats.length !== order.quantity) {
      throw new InvalidParams(`seats: must list ${order.quantity} seat ids, the order's quantity`, 'seats');
    }

    const state = await transitionOrder(tx, order, { type: 'ACCEPT' }, {
      reviewerId: payload.reviewer_id,
      seats: payload.seats ?? null,
      acceptedAt: new Date(),
    });

    const type = FIRST_SHIPMENT_TYPE[order.delivery];
    const snapshot = initialShipmentSnapshot({ type });
    const email = type === 'XSeats' ? await insertEmailAddress(tx, order.recipientEmail) : undefined;
    const shipment = await insertShipment(tx, {
      orderId: order.id,
      type,
      state: shipmentView(snapshot).state,
      snapshot,
      shipToName: type === 'XSeats' ? order.recipientName : null,
      emailAddressId: email?.id ?? null,
    });
    await appendShipmentEvent(tx, {
      orderId: order.id,
      kind: 'created',
      shipmentId: null,
      newShipmentId: shipment.id,
      from: null,
      to: { type: shipment.type, state: shipment.state },
      actor: { brokerageId: actor.brokerageId, userId: actor.userId, role },
      commandId,
    });
    return {
      status: 200,
      body: { id: order.id, oid: order.oid, state, shipments: [acceptedShipmentJson(shipment, { email })] },
    };
  },
});
