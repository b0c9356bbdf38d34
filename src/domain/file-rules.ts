import { fieldPath, InvalidParams, InvalidTransition, type EticketsCommand } from '@fulfil/contract';
import type { FileSet, StoredFileFacts } from '../db/sql/file-sets.ts';

// The rules of a shipment's files, checked twice: before the bytes are stored (src/domain/file-upload.ts,
// so a refused upload stores nothing) and by the command under the order's lock (workers/), which decides.

/** E-tickets go to a pending Eticket shipment. */
export function assertAcceptsEtickets(shipment: { id: number; type: string; state: string }): void {
  if (shipment.type !== 'Eticket') {
    throw new InvalidTransition(
      `shipment ${shipment.id} is ${shipment.type}: e-tickets are uploaded to an Eticket shipment (PUT /v9/shipments/${shipment.id} with mobile_transfer_type Eticket first)`,
    );
  }
  if (shipment.state !== 'pending')
    throw new InvalidTransition(`shipment ${shipment.id} is ${shipment.state}: e-tickets are uploaded before it is completed`);
}

/** A reissue's e-tickets go to a completed Eticket shipment (the command checks its open delivery issue). */
export function assertReissuesEtickets(shipment: { id: number; type: string; state: string }): void {
  if (shipment.type !== 'Eticket') {
    throw new InvalidTransition(`shipment ${shipment.id} is ${shipment.type}: e-tickets are reissued on an Eticket shipment`);
  }
  if (shipment.state !== 'delivered') {
    throw new InvalidTransition(
      `shipment ${shipment.id} is ${shipment.state}: a reissue re-delivers a completed shipment; upload and complete it instead`,
    );
  }
}

const PROOF_TYPES = ['XMobile', 'XMobileLink', 'XSeats'];

/** A proof of transfer is for a mobile transfer (pending or already completed). */
export function assertAcceptsProof(shipment: { id: number; type: string }): void {
  if (!PROOF_TYPES.includes(shipment.type)) {
    throw new InvalidTransition(
      `shipment ${shipment.id} is ${shipment.type}: a proof of transfer is for an ${PROOF_TYPES.join(', ')} shipment`,
    );
  }
}

/**
 * The set holds the order's tickets: one PDF with a page per ticket, or one single-page PDF per
 * ticket. `pages` are the files' page counts in the order given.
 */
export function assertTicketPages(quantity: number, pages: readonly number[]): void {
  const total = pages.reduce((a, b) => a + b, 0);
  const how = `send one PDF of ${quantity} page${quantity === 1 ? '' : 's'}, or ${quantity} single-page PDF${quantity === 1 ? '' : 's'}`;
  if (pages.length === 1 && pages[0] !== quantity) {
    throw new InvalidParams(
      `etickets: the PDF has ${total} page${total === 1 ? '' : 's'} for an order of ${quantity} ticket${quantity === 1 ? '' : 's'}; ${how}`,
      'etickets',
    );
  }
  if (pages.length > 1) {
    const multi = pages.findIndex((p) => p !== 1);
    if (multi >= 0)
      throw InvalidParams.at(
        fieldPath('etickets', multi, 'eticket'),
        `has ${pages[multi]} pages; with several PDFs each holds one ticket (${how})`,
      );
    if (pages.length !== quantity) {
      throw new InvalidParams(
        `etickets: ${pages.length} PDFs for an order of ${quantity} ticket${quantity === 1 ? '' : 's'}; ${how}`,
        'etickets',
      );
    }
  }
}

/** The stored facts of each named file, in order; a file housekeeping already removed is a refusal. */
export function factsInOrder(shas: readonly string[], held: Map<string, StoredFileFacts>, field: string): StoredFileFacts[] {
  return shas.map((sha, i) => {
    const facts = held.get(sha);
    if (!facts) throw InvalidParams.at(fieldPath(field, i), `no stored file has sha256 ${sha}; upload it again`);
    return facts;
  });
}

/** Whether an upload names exactly the current set's files (a repeated upload changes nothing). */
export function sameEtickets(current: FileSet | undefined, etickets: EticketsCommand['etickets']): boolean {
  if (!current || current.files.length !== etickets.length) return false;
  return current.files.every((f, i) => {
    const e = etickets[i]!;
    return f.sha256 === e.sha256 && f.seat === (e.seat ?? null) && f.barcode === (e.barcode ?? null);
  });
}
