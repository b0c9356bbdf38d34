import { withMode } from '../read/answer-mode.ts';
import { InvalidTransition, type Actor, type ReissueCommand } from '@fulfil/contract';
import { applyShipmentEvent, type PersistedShipment } from '../../machines/index.ts';
import type { SqlTx } from '../db/client.ts';
import { shipmentRowOf, type ShipmentRow } from '../db/ops/shipment-rows.ts';
import { insertEmailAddress } from '../db/sql/insert-contacts.ts';
import { insertResponse, responsesOf, type IssueRow } from '../db/sql/delivery-issues.ts';
import type { LockedOrder } from '../db/sql/lock-order.ts';
import { markLabelReplaced } from '../db/sql/reissue-set.ts';
import { replaceShipment } from '../db/sql/replace-shipment.ts';
import { appendIssueEvent, stepIssueBy } from './delivery-issue-access.ts';
import { issueJson, responseJson } from './delivery-issue-json.ts';
import { revokeTrackingNumbers } from './tracking-claims.ts';

type TransferType = NonNullable<ReissueCommand['mobile_transfer_type']>;

/**
 * POST /v9/shipments/:id/reissue with `mobile_transfer_type` on a lost envelope (D-159): the
 * delivery becomes electronic. A new shipment of that type replaces the mailed one, pending until
 * the seller delivers it as any of its type; the envelope's number is revoked (its later scans are
 * stored, shown as revoked, and complete nothing) and the issue becomes seller_responded.
 */
export async function switchToElectronic(
  tx: SqlTx,
  c: {
    order: LockedOrder;
    shipment: ShipmentRow;
    email: { id: number } | null | undefined;
    nextId: number;
    issue: IssueRow;
    type: TransferType;
    payload: ReissueCommand;
    actor: Actor;
    commandId: string;
  },
) {
  const { order, shipment, issue, type, payload, actor, commandId } = c;
  const result = applyShipmentEvent(shipment.snapshot as PersistedShipment, { type: 'SWITCH_ELECTRONIC', transferType: type });
  if (!result.ok) throw new InvalidTransition(result.reason);
  const { after } = await stepIssueBy(tx, issue, { type: 'RESPOND' });
  const at = after.respondedAt!;
  await revokeTrackingNumbers(tx, order.id);
  if (shipment.carrierLabelId !== null) await markLabelReplaced(tx, shipment.id, shipment.carrierLabelId);
  const needsRecipient = type === 'XMobile' || type === 'XSeats';
  const email = c.email ?? (needsRecipient ? await insertEmailAddress(tx, order.recipientEmail) : undefined);
  const { id: _id, replacedBy: _r, replacedAt: _ra, createdAt: _c, deliveredAt: _d, ...carried } = shipment;
  const next = shipmentRowOf(c.nextId, {
    ...carried,
    type: result.view.type,
    state: result.view.state,
    snapshot: result.snapshot,
    delivered: false,
    transferSource: payload.transfer_source ?? shipment.transferSource,
    shipToName: shipment.shipToName ?? (needsRecipient ? order.recipientName : null),
    emailAddressId: email?.id ?? null,
    trackingNumber: null,
    carrierTrackerId: null,
    carrierLabelId: null,
    estimatedDeliveryAt: null,
    shipToAddressId: null,
    serviceType: null,
  });
  const response = await insertResponse(tx, {
    issueId: issue.id,
    orderId: order.id,
    shipmentId: shipment.id,
    kind: 'reissue',
    setId: null,
    transferSource: payload.transfer_source ?? null,
    xMobileLink: null,
    notes: payload.notes ?? null,
    brokerageId: actor.brokerageId,
    userId: actor.userId,
    commandId,
    at,
  });
  const seller = { brokerageId: actor.brokerageId, userId: actor.userId, role: 'seller' as const };
  await appendIssueEvent(tx, {
    issue: after,
    kind: 'delivery_issue_responded',
    shipment: { id: next.id, type: next.type, state: next.state },
    by: { ...seller, commandId },
    details: { response: responseJson(response) },
  });
  const responses = await responsesOf(tx, [issue.id]);
  const body = withMode(
    {
      shipment_id: shipment.id,
      reissue_id: response.id,
      barcodes: { live: [], revoked: [] },
      new_shipment: { id: next.id, type: next.type, state: next.state },
      revoked_tracking_number: shipment.trackingNumber,
      delivery_issue: issueJson(after, responses),
    },
    order,
  );
  await replaceShipment(tx, {
    old: shipment,
    next,
    orderCompletion: null,
    event: {
      kind: 'reissued',
      actor: seller,
      commandId,
      details: {
        reissue_id: response.id,
        delivery_issue_id: issue.id,
        new_shipment_id: next.id,
        revoked_tracking_number: shipment.trackingNumber,
        revoked_label_id: shipment.carrierLabelId,
        notes: payload.notes ?? null,
      },
    },
    answer: { commandId, status: 200, body },
  });
  return { status: 200 as const, body, stored: true as const, timersOf: order.id };
}
