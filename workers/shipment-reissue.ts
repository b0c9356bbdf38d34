import { withMode } from '../src/read/answer-mode.ts';
import { InvalidParams, InvalidTransition, isMailedType, parseOrThrow, reissueCommand } from '@fulfil/contract';
import { responsesOf, undecidedIssueOf, insertResponse } from '../src/db/sql/delivery-issues.ts';
import { holdStoredFiles, replaceCurrentEticketSet } from '../src/db/sql/file-sets.ts';
import { insertReissueSet } from '../src/db/sql/reissue-set.ts';
import { barcodesOf, hasBarcodeRows, writeBarcodes } from '../src/db/sql/shipment-barcodes.ts';
import { barcodesJson, planReissue } from '../src/domain/barcode-reissue.ts';
import { appendIssueEvent, stepIssueBy } from '../src/domain/delivery-issue-access.ts';
import { issueJson, responseJson } from '../src/domain/delivery-issue-json.ts';
import { eticketJson } from '../src/domain/file-json.ts';
import { assertTicketPages, factsInOrder } from '../src/domain/file-rules.ts';
import { openShipment } from '../src/domain/shipment-access.ts';
import { reissueEnvelope } from '../src/domain/mailed-reissue.ts';
import { switchToElectronic } from '../src/domain/electronic-switch.ts';
import { appendOrderEvent } from '../src/db/sql/append-order-event.ts';
import { assertRoomFor, assertSeatsOfOrder } from '../src/domain/delivery-issue-rules.ts';
import { defineHandler } from './handler.ts';

const OPENING = { role: 'seller', operation: 'reissue tickets', followOtherPartysPickup: false, replaces: false } as const;
/** A lost envelope switched to an electronic delivery: a new shipment replaces the mailed one (D-159). */
const SWITCHING = { ...OPENING, replaces: true } as const;
const LINK_TYPES = ['XMobile', 'XMobileLink'];

/**
 * POST /v9/shipments/:id/reissue: the seller delivers again, on a completed shipment, while a
 * delivery issue of its order waits for an answer. New e-tickets replace the set (the old one
 * stays in the history), replaced barcodes are revoked, and the issue becomes seller_responded.
 * A mailed shipment's lost envelope is replaced by a new one instead (mailed-reissue.ts).
 */
export default defineHandler({
  name: 'shipment.reissue',
  parse: (payload) => parseOrThrow(reissueCommand, payload, 'payload'),
  async handle(tx, { payload, actor, commandId }, ctx) {
    const switching = payload.mobile_transfer_type !== undefined;
    const { order, shipment, email, nextId } = await openShipment(tx, payload.shipment_id, actor, switching ? SWITCHING : OPENING);
    const issue = await undecidedIssueOf(tx, order.id);
    if (!issue) throw new InvalidTransition(`order ${order.id} has no open delivery issue: a reissue answers one (the buyer opens it)`);
    // Every reissue is one of the seller's answers, a new envelope included: each counts to the order's limit.
    await assertRoomFor(tx, order.id, 'answer');
    if (isMailedType(shipment.type) && payload.mobile_transfer_type) {
      const ctx = { order, shipment, email, nextId: nextId!, issue, type: payload.mobile_transfer_type, payload, actor, commandId };
      return switchToElectronic(tx, ctx);
    }
    if (isMailedType(shipment.type))
      return reissueEnvelope(tx, { order, shipment, issue, payload, actor, commandId, carrierStepMs: ctx.deadlines.carrierStepMs });
    if (switching) {
      throw InvalidParams.at(
        'mobile_transfer_type',
        `a ${shipment.type} shipment has no envelope to replace: a reissue gives its files, barcodes or link (PUT /v9/shipments/${shipment.id} changes the method of a pending one)`,
      );
    }
    if (payload.tracking_number !== undefined) {
      throw InvalidParams.at('tracking_number', `a ${shipment.type} shipment has no envelope; a new tracking number is for a mailed one`);
    }
    if (shipment.state !== 'delivered') {
      throw new InvalidTransition(
        `shipment ${shipment.id} is ${shipment.state}: a reissue re-delivers a completed shipment; complete it instead`,
      );
    }
    if (payload.etickets && shipment.type !== 'Eticket') {
      throw new InvalidTransition(`shipment ${shipment.id} is ${shipment.type}: e-tickets are reissued on an Eticket shipment`);
    }
    if (payload.x_mobile_link !== undefined && !LINK_TYPES.includes(shipment.type)) {
      throw new InvalidParams(`x_mobile_link: a ${shipment.type} shipment takes no transfer link`, 'x_mobile_link');
    }
    await assertSeatsOfOrder(tx, order.id, [
      ...(payload.tickets ?? []).map((t, i) => ({ seat: t.seat, field: `tickets.${i}.seat` })),
      ...(payload.etickets ?? []).flatMap((e, i) => (e.seat !== undefined ? [{ seat: e.seat, field: `etickets.${i}.seat` }] : [])),
    ]);
    const { after } = await stepIssueBy(tx, issue, { type: 'RESPOND' });
    const at = after.respondedAt!;

    // The barcodes as given before this reissue (read before its files replace the set).
    const current = await barcodesOf(tx, shipment.id);
    const copied = !(await hasBarcodeRows(tx, shipment.id));
    let etickets: ReturnType<typeof eticketJson>[] | undefined;
    let setId: number | null = null;
    if (payload.etickets) {
      const shas = payload.etickets.map((e) => e.sha256);
      const facts = factsInOrder(shas, await holdStoredFiles(tx, shas), 'etickets');
      const notPdf = facts.findIndex((f) => f.mediaType !== 'application/pdf');
      if (notPdf >= 0) throw new InvalidParams(`etickets[${notPdf}]: is not a PDF`, `etickets.${notPdf}`);
      assertTicketPages(
        order.quantity,
        facts.map((f) => f.pages ?? 0),
      );
      await replaceCurrentEticketSet(tx, shipment.id);
      const set = await insertReissueSet(tx, { orderId: order.id, shipmentId: shipment.id, commandId, actor, at, files: payload.etickets });
      setId = set.setId;
      etickets = set.files.map((f, i) =>
        eticketJson(shipment.id, { ...f, seat: f.seat ?? null, barcode: f.barcode ?? null, ...facts[i]! }),
      );
    }

    const response = await insertResponse(tx, {
      issueId: issue.id,
      orderId: order.id,
      shipmentId: shipment.id,
      kind: 'reissue',
      setId,
      ...(payload.tickets ? { tickets: payload.tickets } : {}),
      transferSource: payload.transfer_source ?? null,
      xMobileLink: payload.x_mobile_link ?? null,
      notes: payload.notes ?? null,
      brokerageId: actor.brokerageId,
      userId: actor.userId,
      commandId,
      at,
    });
    const plan = planReissue(current, payload);
    await writeBarcodes(tx, {
      shipmentId: shipment.id,
      orderId: order.id,
      copy: copied ? current : [],
      ...plan,
      reissueId: response.id,
      at,
    });
    const barcodes = barcodesJson(await barcodesOf(tx, shipment.id));

    const seller = { brokerageId: actor.brokerageId, userId: actor.userId, role: 'seller' as const };
    const where = { type: shipment.type, state: shipment.state };
    await appendOrderEvent(tx, {
      orderId: order.id,
      kind: 'reissued',
      shipmentId: shipment.id,
      from: where,
      to: where,
      details: {
        reissue_id: response.id,
        delivery_issue_id: issue.id,
        ...(etickets ? { etickets, set_id: setId } : {}),
        ...(payload.tickets ? { tickets: payload.tickets } : {}),
        ...(payload.transfer_source ? { transfer_source: payload.transfer_source } : {}),
        ...(payload.x_mobile_link ? { x_mobile_link: payload.x_mobile_link } : {}),
        notes: payload.notes ?? null,
        revoked: plan.revoke.map((b) => ({ seat: b.seat, [b.key]: b.value })),
      },
      actor: seller,
      commandId,
    });
    const responses = await responsesOf(tx, [issue.id]);
    await appendIssueEvent(tx, {
      issue: after,
      kind: 'delivery_issue_responded',
      shipment: { id: shipment.id, ...where },
      by: { ...seller, commandId },
      details: { response: responseJson(response) },
    });
    const body = withMode(
      {
        shipment_id: shipment.id,
        reissue_id: response.id,
        ...(etickets ? { etickets } : {}),
        barcodes,
        delivery_issue: issueJson(after, responses),
      },
      order,
    );
    return { status: 200, body, timersOf: order.id };
  },
});
