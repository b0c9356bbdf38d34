import type { CompletionTicket, ReissueCommand } from '@fulfil/contract';
import type { BarcodeKey, BarcodeRow } from '../db/sql/shipment-barcodes.ts';

export interface GivenBarcode {
  seat: string | null;
  key: BarcodeKey;
  value: string;
  source: 'reissue' | 'eticket';
}

const keyOf = (t: CompletionTicket): BarcodeKey =>
  t.barcode !== undefined ? 'barcode' : t.primary_ticket_id !== undefined ? 'primary_ticket_id' : 'verification_id';
const same = (a: { seat: string | null; key: string; value: string }, b: { seat: string | null; key: string; value: string }) =>
  a.seat === b.seat && a.key === b.key && a.value === b.value;

/**
 * What a reissue does to the shipment's barcodes. New e-tickets replace the set, so every barcode
 * the old files carried is replaced; new `tickets` replace, seat by seat, what was given for those
 * seats. A replaced barcode is revoked unless the reissue gives it again unchanged (then it stays,
 * as it was); what is new is given.
 */
export function planReissue(
  current: readonly BarcodeRow[],
  reissue: Pick<ReissueCommand, 'etickets' | 'tickets'>,
): { revoke: BarcodeRow[]; give: GivenBarcode[] } {
  const live = current.filter((b) => b.revokedAt === null);
  const fromFiles: GivenBarcode[] = (reissue.etickets ?? []).flatMap((e) =>
    e.barcode !== undefined ? [{ seat: e.seat ?? null, key: 'barcode' as const, value: e.barcode, source: 'eticket' as const }] : [],
  );
  const fromTickets: GivenBarcode[] = (reissue.tickets ?? []).map((t) => ({
    seat: t.seat,
    key: keyOf(t),
    value: (t.barcode ?? t.primary_ticket_id ?? t.verification_id)!,
    source: 'reissue',
  }));
  const incoming = [...fromFiles, ...fromTickets];
  const seats = new Set((reissue.tickets ?? []).map((t) => t.seat));
  const replaced = live.filter((b) => (reissue.etickets && b.source === 'eticket') || (b.seat !== null && seats.has(b.seat)));
  return {
    revoke: replaced.filter((b) => !incoming.some((n) => same(n, b))),
    give: incoming.filter((n) => !live.some((b) => same(n, b))),
  };
}

/** A barcode as GET /v9/shipments/:id and the evidence show it. */
export function barcodeJson(b: BarcodeRow) {
  return {
    seat: b.seat,
    [b.key]: b.value,
    source: b.source,
    given_at: b.givenAt.toISOString(),
    given_by_reissue_id: b.givenBy,
    ...(b.revokedAt ? { revoked_at: b.revokedAt.toISOString(), revoked_by_reissue_id: b.revokedBy } : {}),
  };
}

/** The shipment's barcodes, the live and the revoked apart. */
export function barcodesJson(rows: readonly BarcodeRow[]) {
  return { live: rows.filter((b) => !b.revokedAt).map(barcodeJson), revoked: rows.filter((b) => b.revokedAt).map(barcodeJson) };
}
