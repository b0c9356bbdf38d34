import { withMode } from '../src/read/answer-mode.ts';
import { orderNow } from '../src/db/sql/lock-order.ts';
import { eticketsCommand, fieldPath, InvalidParams, parseOrThrow } from '@fulfil/contract';
import { attachFileSet, currentEticketSet, drawFileSetIds, holdStoredFiles, replaceCurrentEticketSet } from '../src/db/sql/file-sets.ts';
import { eticketJson } from '../src/domain/file-json.ts';
import { assertAcceptsEtickets, assertTicketPages, factsInOrder, sameEtickets } from '../src/domain/file-rules.ts';
import { openShipment, sendShipmentReads } from '../src/domain/shipment-access.ts';
import { mobileTransferJson } from '../src/domain/shipment-response.ts';
import { defineHandler } from './handler.ts';

const OPENING = { role: 'seller', operation: 'upload e-tickets', followOtherPartysPickup: false, replaces: false, delivers: true } as const;

/**
 * POST /v9/shipments/:id/etickets: attaches files the HTTP side already stored (by sha256) as the
 * shipment's e-ticket set, replacing the current one. The same files again change nothing (no
 * new set, no event), so an upload sent twice at once ends in one set.
 */
export default defineHandler({
  name: 'shipment.etickets',
  parse: (payload) => parseOrThrow(eticketsCommand, payload, 'payload'),
  open: (tx, { payload, actor }) => sendShipmentReads(tx, payload.shipment_id, actor, OPENING),
  async handle(tx, { payload, actor, commandId }, _ctx, opened) {
    const { order, shipment, email, role } = await openShipment(tx, payload.shipment_id, actor, OPENING, opened);
    assertAcceptsEtickets(shipment);
    const shas = payload.etickets.map((e) => e.sha256);
    const facts = factsInOrder(shas, await holdStoredFiles(tx, shas), 'etickets');
    const notPdf = facts.findIndex((f) => f.mediaType !== 'application/pdf');
    if (notPdf >= 0) throw InvalidParams.at(fieldPath('etickets', notPdf), 'is not a PDF');
    assertTicketPages(
      order.quantity,
      facts.map((f) => f.pages ?? 0),
    );

    const shown = mobileTransferJson(shipment, { email });
    const current = await currentEticketSet(tx, shipment.id);
    if (current && sameEtickets(current, payload.etickets)) {
      return { status: 200, body: withMode({ ...shown, etickets: current.files.map((f) => eticketJson(shipment.id, f)) }, order) };
    }
    if (current) await replaceCurrentEticketSet(tx, shipment.id);
    const { setId, fileIds } = await drawFileSetIds(tx, payload.etickets.length);
    const files = payload.etickets.map((e, i) => ({ ...e, id: fileIds[i]! }));
    const etickets = files.map((f, i) =>
      eticketJson(shipment.id, { ...f, seat: f.seat ?? null, barcode: f.barcode ?? null, ...facts[i]! }),
    );
    const body = withMode({ ...shown, etickets }, order);
    await attachFileSet(tx, {
      setId,
      createdAt: orderNow(order),
      kind: 'etickets',
      orderId: order.id,
      shipment,
      files,
      event: {
        kind: 'etickets_uploaded',
        actor: { brokerageId: actor.brokerageId, userId: actor.userId, role },
        commandId,
        details: { set_id: setId, replaced_set_id: current?.id ?? null, etickets },
      },
      answer: { commandId, status: 200, body },
    });
    return { status: 200, body, stored: true };
  },
});
