import { withMode } from '../read/answer-mode.ts';
import { InvalidParams, InvalidTransition, isMailedType, type Actor, type ReissueCommand } from '@fulfil/contract';
import { applyShipmentEvent, type PersistedShipment } from '../../machines/index.ts';
import type { SqlTx } from '../db/client.ts';
import type { SqlRunner } from '../db/database.ts';
import type { ShipmentRow } from '../db/ops/shipment-rows.ts';
import { insertResponse, responsesOf, type IssueRow } from '../db/sql/delivery-issues.ts';
import type { LockedOrder } from '../db/sql/lock-order.ts';
import { moveMailedShipment } from '../db/sql/mailed-shipment.ts';
import { appendIssueEvent, stepIssueBy } from './delivery-issue-access.ts';
import { issueJson, responseJson } from './delivery-issue-json.ts';
import { claimTrackingNumber, revokeTrackingNumbers } from './tracking-claims.ts';
import { assertTrackingFits } from './tracking-numbers.ts';
import { holdStoredFiles } from '../db/sql/file-sets.ts';
import { insertReissueSet, markLabelReplaced } from '../db/sql/reissue-set.ts';
import { factsInOrder } from './file-rules.ts';
import { planScans } from '../sandbox/carrier-simulator.ts';

/** Where a lost envelope can be: on its way, held up, or back with the seller. */
const RESHIPPABLE = ['in_transit', 'exception', 'returned'];

/**
 * POST /v9/shipments/:id/reissue on a mailed shipment (D-155): the envelope is lost, a new one
 * goes out. The new number is claimed (409 if another envelope holds it), the old one revoked: its
 * later scans are still stored, shown as revoked, and complete nothing. The shipment is carried
 * again (`in_transit`), keeps its id, and the issue becomes seller_responded.
 */
export async function reissueEnvelope(
  tx: SqlTx,
  c: {
    order: LockedOrder;
    shipment: ShipmentRow;
    issue: IssueRow;
    payload: ReissueCommand;
    actor: Actor;
    commandId: string;
    /** The carrier simulator's wall-clock step (SANDBOX_CARRIER_STEP). */
    carrierStepMs?: number | undefined;
  },
) {
  const { order, shipment, issue, payload, actor, commandId } = c;
  if (!isMailedType(shipment.type)) throw new Error(`shipment ${shipment.id} is not mailed`);
  if (!RESHIPPABLE.includes(shipment.state)) {
    throw new InvalidTransition(
      `shipment ${shipment.id} is ${shipment.state}: a new envelope replaces one in transit, in exception or returned; ` +
        (shipment.state === 'delivered'
          ? `the carrier delivered this one: answer the issue with the evidence (POST /v9/delivery_issues/${issue.id}/responses)`
          : 'ship this one first (PUT /v9/shipments/:id/complete)'),
    );
  }
  // A request that joined another's purchase (D-158): that reissue carried this label; it is answered again.
  if (payload.label && shipment.carrierLabelId === payload.label.label_id)
    return answerAttached(tx, order, shipment, issue, payload.label.label_id);
  const extra = [payload.etickets && 'etickets', payload.tickets && 'tickets', payload.x_mobile_link && 'x_mobile_link'].find(Boolean);
  if (extra) throw InvalidParams.at(extra, `a ${shipment.type} shipment is re-shipped with a new envelope: give its tracking_number`);
  if (!payload.tracking_number)
    throw InvalidParams.at('tracking_number', `required: the number of the new envelope of this ${shipment.type} shipment`);
  assertTrackingFits(shipment.type, payload.tracking_number, { livemode: order.livemode });
  // One in transit stays in transit; one held up or back with the seller is carried again.
  const result =
    shipment.state === 'in_transit'
      ? { ok: true as const, snapshot: shipment.snapshot as PersistedShipment, view: { state: shipment.state } }
      : applyShipmentEvent(shipment.snapshot as PersistedShipment, { type: 'RESHIP' });
  if (!result.ok) throw new InvalidTransition(result.reason);

  const label = payload.label;
  if (label) {
    const [facts] = factsInOrder([label.sha256], await holdStoredFiles(tx, [label.sha256]), 'airbill');
    if (facts!.mediaType !== 'application/pdf') throw new InvalidParams('airbill: is not a PDF', 'airbill');
  }
  const { after } = await stepIssueBy(tx, issue, { type: 'RESPOND' });
  const at = after.respondedAt!;
  const revokedNumber = shipment.trackingNumber;
  await revokeTrackingNumbers(tx, order.id);
  // The lost envelope's bought label is spent: a later reissue may buy the next (D-158).
  if (!label && shipment.carrierLabelId !== null) await markLabelReplaced(tx, shipment.id, shipment.carrierLabelId);
  if (label) {
    const note = `purchased:${label.provider}:${label.label_id}`;
    await insertReissueSet(tx, {
      orderId: order.id,
      shipmentId: shipment.id,
      commandId,
      actor,
      at,
      kind: 'airbill',
      files: [{ sha256: label.sha256, note }],
    });
  }
  await claimTrackingNumber(tx, {
    orderId: order.id,
    shipmentId: shipment.id,
    number: payload.tracking_number,
    trackerId: payload.tracker_id ?? null,
    livemode: order.livemode,
  });
  const response = await insertResponse(tx, {
    issueId: issue.id,
    orderId: order.id,
    shipmentId: shipment.id,
    kind: 'reissue',
    setId: null,
    transferSource: null,
    xMobileLink: null,
    notes: payload.notes ?? null,
    brokerageId: actor.brokerageId,
    userId: actor.userId,
    commandId,
    at,
  });
  const seller = { brokerageId: actor.brokerageId, userId: actor.userId, role: 'seller' as const };
  const next: ShipmentRow = {
    ...shipment,
    state: result.view.state,
    snapshot: result.snapshot,
    trackingNumber: payload.tracking_number,
    carrierTrackerId: payload.tracker_id ?? null,
    carrierLabelId: label?.label_id ?? null,
    serviceType: label?.service || shipment.serviceType,
    estimatedDeliveryAt: label?.estimated_delivery_at ? new Date(label.estimated_delivery_at) : null,
  };
  const purchase = label ? { provider: label.provider, service: label.service, reason: label.reason, rate: label.rate } : undefined;
  await moveMailedShipment(tx, {
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
        tracking_number: payload.tracking_number,
        revoked_tracking_number: revokedNumber,
        ...(purchase ? { purchase, label_id: label!.label_id } : {}),
        revoked_label_id: shipment.carrierLabelId,
        notes: payload.notes ?? null,
      },
    },
  });
  // A test shipment's new envelope with a test code: the simulator carries it from now (timersOf below).
  await planScans(
    tx,
    { orderId: order.id, shipmentId: shipment.id, trackingNumber: payload.tracking_number, livemode: order.livemode },
    c.carrierStepMs,
  );
  const responses = await responsesOf(tx, [issue.id]);
  await appendIssueEvent(tx, {
    issue: after,
    kind: 'delivery_issue_responded',
    shipment: { id: shipment.id, type: next.type, state: next.state },
    by: { ...seller, commandId },
    details: { response: responseJson(response) },
  });
  const body = withMode(
    {
      shipment_id: shipment.id,
      reissue_id: response.id,
      barcodes: { live: [], revoked: [] },
      tracking_number: payload.tracking_number,
      revoked_tracking_number: revokedNumber,
      ...(purchase ? { purchase } : {}),
      delivery_issue: issueJson(after, responses),
    },
    order,
  );
  return { status: 200 as const, body, timersOf: order.id };
}

/** The reissue that attached `labelId` to the shipment, answered as it was (a racing request's answer). */
async function answerAttached(tx: SqlTx, order: LockedOrder, shipment: ShipmentRow, issue: IssueRow, labelId: string) {
  const [event] = await (tx as unknown as SqlRunner).rows<{ details: Record<string, unknown> }>(
    `select details from shipment_events where shipment_id = $1::bigint and kind = 'reissued' and details->>'label_id' = $2
     order by seq desc limit 1`,
    [shipment.id, labelId],
  );
  if (!event) throw new InvalidTransition(`shipment ${shipment.id} holds this label already: it was bought for it, not as a new envelope`);
  const d = event.details;
  const responses = await responsesOf(tx, [issue.id]);
  const body = withMode(
    {
      shipment_id: shipment.id,
      reissue_id: Number(d.reissue_id),
      barcodes: { live: [], revoked: [] },
      tracking_number: shipment.trackingNumber!,
      revoked_tracking_number: (d.revoked_tracking_number as string | null) ?? null,
      purchase: d.purchase as { provider: string; service: string; reason: string; rate: string | null },
      delivery_issue: issueJson(issue, responses),
    },
    order,
  );
  return { status: 200 as const, body };
}
