import { withMode } from '../src/read/answer-mode.ts';
import { applyShipmentEvent, type PersistedShipment, type ShipmentEvent } from '../machines/index.ts';
import type { SqlTx } from '../src/db/client.ts';
import type { AddressRow, PhoneNumberRow, ShipmentContacts } from '../src/db/ops/contacts.ts';
import { shipmentRowOf, type NewShipment, type ShipmentRow } from '../src/db/ops/shipment-rows.ts';
import { insertAddress, insertAddressAndPhone, insertEmailAddress, insertPhoneNumber } from '../src/db/sql/insert-contacts.ts';
import type { LockedOrder } from '../src/db/sql/lock-order.ts';
import { replaceShipment } from '../src/db/sql/replace-shipment.ts';
import { sentAhead } from '../src/db/sent-ahead.ts';
import { nextOrderState } from '../src/domain/order-transition.ts';
import { openShipment, sendShipmentReads } from '../src/domain/shipment-access.ts';
import { buyerPickupJson, mailedShipmentJson, mobileTransferJson, sellerPickupJson } from '../src/domain/shipment-response.ts';
import { updateCommand, type UpdateCommand } from '@fulfil/contract';
import { AddressRefused, parseOrThrow, poBoxField, InvalidTransition } from '@fulfil/contract';
import { releaseTrackingNumbers } from '../src/domain/tracking-claims.ts';
import { defineHandler } from './handler.ts';

const OPERATION = {
  mobile_transfer: { role: 'seller', verb: 'change the delivery method', event: 'MOBILE_TRANSFER' },
  seller_pickup: { role: 'seller', verb: "give the seller's local pickup details", event: 'SELLER_PICKUP' },
  buyer_pickup: { role: 'buyer', verb: "give the buyer's local pickup details", event: 'BUYER_PICKUP' },
  mail: { role: 'seller', verb: 'change the delivery method', event: 'MAIL' },
} as const;

function machineEvent(p: UpdateCommand): ShipmentEvent {
  if (p.operation === 'mobile_transfer') return { type: 'MOBILE_TRANSFER', transferType: p.mobile_transfer_type };
  if (p.operation === 'mail') return { type: 'MAIL', mailType: p.type };
  return { type: OPERATION[p.operation].event };
}

type SellerPickup = Extract<UpdateCommand, { operation: 'seller_pickup' }>;
type BuyerPickup = Extract<UpdateCommand, { operation: 'buyer_pickup' }>;
type Mail = Extract<UpdateCommand, { operation: 'mail' }>;
type SellerPickupContacts = { shipFromAddress: AddressRow; shipFromPhone: PhoneNumberRow };
type BuyerPickupContacts = { phone: PhoneNumberRow };

/**
 * The new contact rows a pickup operation's details make (contacts are immutable: new details,
 * new rows), pending. Sent by `open`, they leave with the claim and the reads instead of costing
 * a round trip of their own; a refused or replayed command rolls them back.
 */
interface PickupContactsSent {
  seller?: Promise<SellerPickupContacts>;
  buyer?: Promise<BuyerPickupContacts>;
  mail?: Promise<AddressRow>;
}

const sendMailContacts = (tx: SqlTx, p: Mail): Promise<AddressRow> => sentAhead(insertAddress(tx, p.ship_to_address_attributes));

/** A new delivery method starts with no tracking: the envelope of a method left behind is not this one's. */
const NO_TRACKING = { trackingNumber: null, carrierTrackerId: null, carrierLabelId: null, estimatedDeliveryAt: null } as const;

const sendSellerContacts = (tx: SqlTx, p: SellerPickup): Promise<SellerPickupContacts> =>
  sentAhead(
    insertAddressAndPhone(tx, p.ship_from_address_attributes, p.ship_from_phone_number_attributes).then(({ address, phone }) => ({
      shipFromAddress: address,
      shipFromPhone: phone,
    })),
  );

const sendBuyerContacts = (tx: SqlTx, p: BuyerPickup): Promise<BuyerPickupContacts> =>
  sentAhead(insertPhoneNumber(tx, p.phone_number_attributes).then((phone) => ({ phone })));

function sendPickupContacts(tx: SqlTx, p: UpdateCommand): PickupContactsSent {
  switch (p.operation) {
    case 'seller_pickup':
      return { seller: sendSellerContacts(tx, p) };
    case 'buyer_pickup':
      return { buyer: sendBuyerContacts(tx, p) };
    case 'mail':
      return { mail: sendMailContacts(tx, p) };
    case 'mobile_transfer':
      return {};
  }
}

/**
 * Everything already known carries over to the replacement; the operation overlays its part and
 * brings the contact rows its response shows (a pickup's sent ahead by `open`, else sent now).
 */
async function overlay(
  tx: SqlTx,
  old: ShipmentRow,
  current: ShipmentContacts,
  order: LockedOrder,
  p: UpdateCommand,
  sent: PickupContactsSent | undefined,
): Promise<{ values: Partial<NewShipment>; contacts: ShipmentContacts }> {
  switch (p.operation) {
    case 'mobile_transfer': {
      const needsRecipient = p.mobile_transfer_type === 'XMobile' || p.mobile_transfer_type === 'XSeats';
      const email = current.email ?? (needsRecipient ? await insertEmailAddress(tx, order.recipientEmail) : undefined);
      return {
        values: {
          type: p.mobile_transfer_type,
          transferSource: p.transfer_source ?? old.transferSource,
          shipToName: old.shipToName ?? (needsRecipient ? order.recipientName : null),
          emailAddressId: email?.id ?? null,
          ...NO_TRACKING,
          shipToAddressId: null,
          serviceType: null,
        },
        contacts: { email },
      };
    }
    case 'mail': {
      const address = await (sent?.mail ?? sendMailContacts(tx, p));
      return {
        values: {
          type: p.type,
          shipToName: p.ship_to_address_attributes.name,
          shipToAddressId: address.id,
          serviceType: p.service_type ?? null,
          ...NO_TRACKING,
        },
        contacts: { email: current.email, shipToAddress: address },
      };
    }
    case 'seller_pickup': {
      const contacts = await (sent?.seller ?? sendSellerContacts(tx, p));
      return {
        values: {
          shipFromName: p.ship_from_name,
          shipFromAddressId: contacts.shipFromAddress.id,
          shipFromPhoneNumberId: contacts.shipFromPhone.id,
          pickupTimeRange: p.pickup_time_range,
          pickupInstructions: p.pickup_instructions ?? null,
        },
        contacts,
      };
    }
    case 'buyer_pickup': {
      const contacts = await (sent?.buyer ?? sendBuyerContacts(tx, p));
      return {
        values: { shipToName: p.ship_to_name, phoneNumberId: contacts.phone.id, notes: p.notes ?? null },
        contacts,
      };
    }
  }
}

/**
 * PUT /v9/shipments/:id: every success replaces the shipment (rule U1), local pickup included;
 * the second party's pickup details complete the join and deliver it, completing the order.
 */
export default defineHandler({
  name: 'shipment.update',
  parse: (payload) => parseOrThrow(updateCommand, payload, 'payload'),
  open: (tx, { payload, actor }) => ({
    reads: sendShipmentReads(tx, payload.shipment_id, actor, { role: OPERATION[payload.operation].role, replaces: true }),
    contacts: sendPickupContacts(tx, payload),
  }),
  async handle(tx, { payload, actor, commandId }, _ctx, opened) {
    const op = OPERATION[payload.operation];
    const opts = {
      role: op.role,
      operation: op.verb,
      followOtherPartysPickup: payload.operation === 'seller_pickup' || payload.operation === 'buyer_pickup',
      replaces: true,
    };
    const reads = opened?.reads ?? sendShipmentReads(tx, payload.shipment_id, actor, opts);
    const { order, shipment, email, role, nextId } = await openShipment(tx, payload.shipment_id, actor, opts, reads);
    const result = applyShipmentEvent(shipment.snapshot as PersistedShipment, machineEvent(payload));
    if (!result.ok) throw new InvalidTransition(result.reason);
    if (payload.operation === 'mail') {
      const field = poBoxField(payload.type, payload.ship_to_address_attributes);
      if (field)
        throw new AddressRefused(
          `${field}: ${payload.type} does not deliver to a post office box; give a street address or choose USPS`,
          field,
        );
    }
    const delivered = result.view.state === 'delivered';
    // Validated before the first write, so a refusal leaves nothing to undo.
    const orderCompletion = delivered ? nextOrderState(order, { type: 'COMPLETE' }) : null;

    const { values, contacts } = await overlay(tx, shipment, { email }, order, payload, opened?.contacts);
    const { id: _id, replacedBy: _r, replacedAt: _ra, createdAt: _c, deliveredAt: _d, ...carried } = shipment;
    const replacement = shipmentRowOf(nextId!, {
      ...carried,
      ...values,
      type: result.view.type,
      state: result.view.state,
      snapshot: result.snapshot,
      delivered,
    });
    const shown =
      payload.operation === 'mobile_transfer'
        ? mobileTransferJson(replacement, contacts)
        : payload.operation === 'mail'
          ? mailedShipmentJson(replacement, contacts)
          : payload.operation === 'seller_pickup'
            ? sellerPickupJson(replacement, contacts)
            : buyerPickupJson(replacement, contacts);
    const body = withMode(shown, order);
    // The envelope left behind before it was shipped frees its number (D-150); a shipped one keeps it.
    if (shipment.trackingNumber !== null && shipment.state === 'pending') await releaseTrackingNumbers(tx, order.id);
    await replaceShipment(tx, {
      old: shipment,
      next: replacement,
      orderCompletion,
      event: {
        kind:
          payload.operation === 'mobile_transfer' || payload.operation === 'mail' ? 'updated' : delivered ? 'delivered' : 'pickup_details',
        actor: { brokerageId: actor.brokerageId, userId: actor.userId, role },
        commandId,
      },
      answer: { commandId, status: 200, body },
    });
    return { status: 200, body, stored: true, ...(orderCompletion ? { timersOf: order.id } : {}) };
  },
});
