import { sql } from 'drizzle-orm';
import { query, type Executor } from '../db/client.ts';
import { escapeHtml as e } from './html.ts';
import { isoTime } from '../iso-time.ts';

/** One file of an upload to one of the order's shipments, as the operator's order view lists it. */
export interface OrderFile {
  setId: number;
  shipmentId: number;
  kind: string;
  brokerageId: number;
  userId: number | null;
  uploadedAt: Date;
  replacedAt: Date | null;
  fileId: number;
  seat: string | null;
  barcode: string | null;
  mediaType: string;
  pages: number | null;
  bytes: number;
  sha256: string;
}

/** Every file uploaded to the order's shipments (e-tickets, replaced ones included, and proofs), oldest first. */
export async function loadOrderFiles(ex: Executor, orderId: number): Promise<OrderFile[]> {
  // The uploader's brokerage id is a bigint (a sandbox brokerage's is past int4): made a number here.
  const rows = await query<OrderFile & Record<string, unknown>>(
    ex,
    sql`select s.id::int as "setId", s.shipment_id::int as "shipmentId", s.kind, s.brokerage_id::bigint as "brokerageId",
          s.user_id::int as "userId", s.created_at as "uploadedAt", s.replaced_at as "replacedAt", f.id::int as "fileId",
          f.seat, f.barcode, b.media_type as "mediaType", b.pages, b.bytes, b.sha256
        from shipment_file_sets s join shipment_files f on f.set_id = s.id join stored_files b on b.sha256 = f.sha256
        where s.order_id = ${orderId} order by s.id, f.position`,
  );
  return rows.map((r) => ({ ...r, brokerageId: Number(r.brokerageId) }));
}

export function renderOrderFiles(files: readonly OrderFile[]): string {
  if (files.length === 0) return '<p>No files uploaded.</p>';
  const rows = files.map(
    (f) =>
      `<tr class="${f.replacedAt ? 'old' : ''}"><td>${e(f.kind === 'etickets' ? 'e-tickets' : f.kind === 'airbill' ? 'airbill' : 'proof of transfer')} ${e(f.setId)}</td><td>${e(
        f.shipmentId,
      )}</td><td>${e(f.fileId)}</td><td>${e(f.mediaType)}</td><td>${e(f.pages ?? '–')}</td><td>${e(f.bytes)}</td><td>${e(f.seat ?? '')}</td><td>${e(
        f.barcode ?? '',
      )}</td><td>brokerage ${e(f.brokerageId)}${f.userId === null ? '' : `, user ${e(f.userId)}`}</td><td>${e(isoTime(f.uploadedAt))}</td><td>${e(
        f.replacedAt ? isoTime(f.replacedAt) : '',
      )}</td><td class="mono">${e(f.sha256.slice(0, 16))}…</td></tr>`,
  );
  return `<table id="files"><tr><th>upload</th><th>shipment</th><th>file</th><th>type</th><th>pages</th><th>bytes</th><th>seat</th><th>barcode</th><th>uploaded by</th><th>uploaded</th><th>replaced</th><th>sha256</th></tr>
${rows.join('\n')}
</table>`;
}
