import { withMode } from '../src/read/answer-mode.ts';
import { orderNow } from '../src/db/sql/lock-order.ts';
import { airbillCommand, Forbidden, InvalidParams, InvalidTransition, isMailedType, LabelBought, parseOrThrow } from '@fulfil/contract';
import { attachFileSet, drawFileSetIds, fileSetsOf, holdStoredFiles } from '../src/db/sql/file-sets.ts';
import { addressRow, setLabelFacts } from '../src/db/sql/mailed-shipment.ts';
import { storeResult } from '../src/db/sql/store-result.ts';
import { claimTrackingNumber } from '../src/domain/tracking-claims.ts';
import { airbillJson, labelSource } from '../src/domain/airbill-json.ts';
import { factsInOrder } from '../src/domain/file-rules.ts';
import { openShipment, sendShipmentReads } from '../src/domain/shipment-access.ts';
import { mailedShipmentJson } from '../src/domain/shipment-response.ts';
import { assertTrackingFits } from '../src/domain/tracking-numbers.ts';
import { defineHandler } from './handler.ts';

const opening = (by: 'seller' | 'buyer') =>
  ({ role: by, operation: 'give the airbill', followOtherPartysPickup: false, replaces: false, delivers: true }) as const;

/**
 * POST /v9/shipments/:id/airbill: attaches a label the HTTP side stored (uploaded, or bought
 * through the carrier account) and sets the tracking number it carries. The seller gives it;
 * for ProvidedAirbill, the buyer. A label bought once is the label: a second purchase answers the
 * first (idempotent), an upload is 409 label_bought. An upload replaces an uploaded label until the envelope is shipped.
 */
export default defineHandler({
  name: 'shipment.airbill',
  parse: (payload) => parseOrThrow(airbillCommand, payload, 'payload'),
  open: (tx, { payload, actor }) => sendShipmentReads(tx, payload.shipment_id, actor, opening(payload.by)),
  async handle(tx, { payload, actor, commandId }, _ctx, opened) {
    const { order, shipment, role } = await openShipment(tx, payload.shipment_id, actor, opening(payload.by), opened);
    const type = shipment.type;
    if (!isMailedType(type)) {
      throw new InvalidTransition(
        `shipment ${shipment.id} is ${type}: an airbill is for a mailed shipment (PUT /v9/shipments/${shipment.id} with type FedEx, UPS, USPS or ProvidedAirbill first)`,
      );
    }
    const giver = type === 'ProvidedAirbill' ? 'buyer' : 'seller';
    if (role !== giver) throw new Forbidden(`only the ${giver} may give the airbill of a ${type} shipment`);
    const contacts = { shipToAddress: await addressRow(tx, shipment.shipToAddressId) };
    const sets = await fileSetsOf(tx, shipment.id, 'airbill');
    const current = sets.at(-1);
    // Bought already: the first label stands. A purchase asked again answers it; an upload is refused (D-164).
    const bought = current && shipment.carrierLabelId !== null && labelSource(current) === 'purchased';
    if (bought && !payload.purchase) throw new LabelBought(shipment.id);
    if (current && shipment.carrierLabelId !== null && (payload.purchase || bought)) {
      const body = withMode(
        { ...mailedShipmentJson(shipment, contacts), airbill: airbillJson(shipment.id, current, 'purchased', giver), purchase: null },
        order,
      );
      await storeResult(tx, commandId, 200, body);
      return { status: 200, body, stored: true };
    }
    if (shipment.state !== 'pending')
      throw new InvalidTransition(`shipment ${shipment.id} is ${shipment.state}: its airbill can no longer change`);
    assertTrackingFits(type, payload.tracking_number, { livemode: order.livemode });
    const [facts] = factsInOrder([payload.sha256], await holdStoredFiles(tx, [payload.sha256]), 'airbill');
    if (facts!.mediaType !== 'application/pdf') throw new InvalidParams('airbill: is not a PDF', 'airbill');

    const p = payload.purchase;
    const next = {
      ...shipment,
      trackingNumber: payload.tracking_number,
      carrierLabelId: p?.label_id ?? null,
      carrierTrackerId: p?.tracker_id ?? payload.tracker_id ?? null,
      serviceType: p?.service ?? shipment.serviceType,
      estimatedDeliveryAt: p?.estimated_delivery_at ? new Date(p.estimated_delivery_at) : null,
    };
    await claimTrackingNumber(tx, {
      orderId: order.id,
      shipmentId: shipment.id,
      number: payload.tracking_number,
      trackerId: next.carrierTrackerId,
      livemode: order.livemode,
    });
    const shipmentBefore = await setLabelFacts(tx, next);
    const { setId, fileIds } = await drawFileSetIds(tx, 1);
    const source = p ? 'purchased' : 'uploaded';
    const file = { id: fileIds[0]!, sha256: payload.sha256, note: p ? `purchased:${p.provider}:${p.label_id}` : 'uploaded' };
    const airbill = airbillJson(shipment.id, { files: [{ ...file, position: 0, seat: null, barcode: null, ...facts! }] }, source, giver);
    const purchase = p ? { provider: p.provider, service: p.service, reason: p.reason, rate: p.rate } : null;
    const body = withMode({ ...mailedShipmentJson(next, contacts), airbill, purchase }, order);
    await attachFileSet(tx, {
      setId,
      createdAt: orderNow(order),
      kind: 'airbill',
      orderId: order.id,
      shipment,
      files: [file],
      event: {
        kind: 'airbill_created',
        actor: { brokerageId: actor.brokerageId, userId: actor.userId, role },
        commandId,
        details: { tracking_number: payload.tracking_number, airbill, purchase, replaced_set_id: current?.id ?? null },
      },
      answer: { commandId, status: 200, body },
      shipmentBefore,
    });
    return { status: 200, body, stored: true };
  },
});
