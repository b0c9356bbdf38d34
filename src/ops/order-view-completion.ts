import { and, eq, isNull, sql } from 'drizzle-orm';
import { query, type Executor } from '../db/client.ts';
import { shipments } from '../db/schema.ts';
import type { ShipmentEventRow } from '../events/public-event.ts';
import { escapeHtml as e } from './html.ts';

/** One seat's ticket as the completion gave it: exactly one of its barcode, primary ticket id or verification id. */
export interface SeatTicket {
  seat: string;
  barcode?: string;
  primary_ticket_id?: string;
  verification_id?: string;
}

/** What completed the live shipment: its platform, its link, and the per-seat tickets, live and revoked. */
export interface CompletionView {
  transferSource: string | null;
  xMobileLink: string | null;
  /** The seats' tickets by status: a reissue revokes the ones it replaces (shipment_barcodes). */
  tickets: { live: SeatTicket[]; revoked: SeatTicket[] };
}

/** Read from the live shipment row and the order's last completion event (its details hold the tickets). */
export async function loadCompletion(ex: Executor, orderId: number, events: readonly ShipmentEventRow[]): Promise<CompletionView> {
  const [live] = await ex
    .select({ id: shipments.id, transferSource: shipments.transferSource, xMobileLink: shipments.xMobileLink })
    .from(shipments)
    .where(and(eq(shipments.orderId, orderId), isNull(shipments.replacedBy)));
  const completed = [...events].reverse().find((ev) => ev.kind === 'completed');
  const details = (completed?.details ?? null) as { tickets?: SeatTicket[]; transfer_source?: string } | null;
  // Once a reissue replaced a ticket, every barcode of the shipment has its row, live or revoked
  // (src/db/sql/shipment-barcodes.ts); before, the completion's tickets are all live.
  const rows = live
    ? await query<{ seat: string | null; key: keyof Omit<SeatTicket, 'seat'>; value: string; revoked: boolean }>(
        ex,
        sql`select seat, key, value, revoked_at is not null as revoked from shipment_barcodes where shipment_id = ${live.id} order by id`,
      )
    : [];
  const ticket = (r: (typeof rows)[number]): SeatTicket => ({ seat: r.seat ?? '–', [r.key]: r.value });
  return {
    transferSource: live?.transferSource ?? details?.transfer_source ?? null,
    xMobileLink: live?.xMobileLink ?? null,
    tickets:
      rows.length > 0
        ? { live: rows.filter((r) => !r.revoked).map(ticket), revoked: rows.filter((r) => r.revoked).map(ticket) }
        : { live: details?.tickets ?? [], revoked: [] },
  };
}

const TICKET_KEYS = [
  ['barcode', 'barcode'],
  ['primary_ticket_id', 'primary ticket id'],
  ['verification_id', 'verification id'],
] as const;

function ticketRows(tickets: readonly SeatTicket[], status: string): string[] {
  return tickets.map((t) => {
    const [key, label] = TICKET_KEYS.find(([k]) => t[k] !== undefined) ?? ['barcode', 'barcode'];
    return `<tr class="${e(status)}" data-seat="${e(t.seat)}"><td>${e(t.seat)}</td><td>${e(label)}</td><td class="mono">${e(t[key] ?? '–')}</td><td>${e(status)}</td></tr>`;
  });
}

export function renderCompletion(c: CompletionView): string {
  const link = c.xMobileLink
    ? c.xMobileLink
        .split(',')
        .map((u) => `<a href="${e(u)}" rel="noreferrer">${e(u)}</a>`)
        .join(', ')
    : '–';
  const facts = `<table id="completion" class="facts">
<tr data-field="transfer_source"><td>transfer source</td><td>${e(c.transferSource ?? '–')}</td></tr>
<tr data-field="x_mobile_link"><td>x_mobile_link</td><td>${link}</td></tr>
</table>`;
  const rows = [...ticketRows(c.tickets.live, 'live'), ...ticketRows(c.tickets.revoked, 'revoked')];
  const tickets =
    rows.length > 0
      ? `<table id="seat-tickets"><tr><th>seat</th><th>by</th><th>value</th><th>status</th></tr>\n${rows.join('\n')}\n</table>`
      : '<p id="seat-tickets">No per-seat tickets: the completion gave none.</p>';
  return `${facts}\n${tickets}`;
}
