import { withMode } from '../src/read/answer-mode.ts';
import { orderNow } from '../src/db/sql/lock-order.ts';
import { parseOrThrow, transferVerificationCommand } from '@fulfil/contract';
import { attachFileSet, drawFileSetIds, holdStoredFiles } from '../src/db/sql/file-sets.ts';
import { transferVerificationJson } from '../src/domain/file-json.ts';
import { assertAcceptsProof, factsInOrder } from '../src/domain/file-rules.ts';
import { openShipment, sendShipmentReads } from '../src/domain/shipment-access.ts';
import { defineHandler } from './handler.ts';

const OPENING = { role: 'seller', operation: 'prove a transfer', followOtherPartysPickup: false, replaces: false, delivers: true } as const;

/**
 * POST /v9/shipments/:id/transfer_verifications: the seller's proof that a mobile transfer was
 * made (screenshots or a PDF the HTTP side already checked and stored). Proofs add up; each is
 * an event `shipment.transfer_verified`.
 */
export default defineHandler({
  name: 'shipment.transfer_verification',
  parse: (payload) => parseOrThrow(transferVerificationCommand, payload, 'payload'),
  open: (tx, { payload, actor }) => sendShipmentReads(tx, payload.shipment_id, actor, OPENING),
  async handle(tx, { payload, actor, commandId }, _ctx, opened) {
    const { order, shipment, role } = await openShipment(tx, payload.shipment_id, actor, OPENING, opened);
    assertAcceptsProof(shipment);
    const shas = payload.files.map((f) => f.sha256);
    const held = await holdStoredFiles(tx, shas);
    const facts = factsInOrder(shas, held, 'files');
    const { setId, fileIds } = await drawFileSetIds(tx, payload.files.length);
    const now = orderNow(order);
    const files = payload.files.map((f, i) => ({ ...f, id: fileIds[i]! }));
    const proof = transferVerificationJson({
      id: setId,
      shipmentId: shipment.id,
      kind: 'transfer_verification',
      brokerageId: actor.brokerageId,
      userId: actor.userId,
      createdAt: now,
      replacedAt: null,
      files: files.map((f, position) => ({
        id: f.id,
        position,
        seat: null,
        barcode: null,
        note: f.note ?? null,
        ...facts[position]!,
      })),
    });
    const body = withMode(proof, order);
    await attachFileSet(tx, {
      setId,
      createdAt: now,
      kind: 'transfer_verification',
      orderId: order.id,
      shipment,
      files,
      event: {
        kind: 'transfer_verified',
        actor: { brokerageId: actor.brokerageId, userId: actor.userId, role },
        commandId,
        details: { transfer_verification: proof },
      },
      answer: { commandId, status: 200, body },
    });
    return { status: 200, body, stored: true };
  },
});
