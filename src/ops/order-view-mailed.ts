import { isMailedType } from '@fulfil/contract';
import { query, type Executor } from '../db/client.ts';
import { trackingUrlOf } from '../domain/tracking-numbers.ts';
import { isoTime } from '../iso-time.ts';
import { escapeHtml as e } from './html.ts';
import { sql } from 'drizzle-orm';
import { isSellerClaim } from '../read/tracking-events.ts';
import { opsLabelPath } from './label-route.ts';

/** A mailed order's envelope, as the operator's order view shows it: where, how, its label and every scan. */
export interface OrderMailing {
  shipmentId: number;
  type: string;
  state: string;
  serviceType: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  carrierTracked: boolean;
  address: string | null;
  label: { sha256: string; bytes: number; source: string } | null;
  scans: { at: Date; status: string; source: string; sellerClaim: boolean; location: string | null; description: string | null }[];
}

/** The live shipment's mailing, undefined when it is not mailed. */
export async function loadOrderMailing(ex: Executor, orderId: number): Promise<OrderMailing | undefined> {
  const [s] = await query<Record<string, unknown>>(
    ex,
    sql`select s.id::int as id, s.type, s.state, s.service_type as "serviceType", s.tracking_number as "trackingNumber",
      s.carrier_tracker_id is not null as "carrierTracked",
      concat_ws(', ', a.name, a.street_address, a.extended_address, a.locality, a.region, a.postal_code, a.country_code) as address
      from shipments s left join addresses a on a.id = s.ship_to_address_id where s.order_id = ${orderId} and s.replaced_by is null`,
  );
  if (!s || !isMailedType(String(s.type))) return undefined;
  const id = Number(s.id);
  const [label] = await query<{ sha256: string; bytes: number; note: string | null }>(
    ex,
    sql`select f.sha256, b.bytes, f.note from shipment_file_sets fs join shipment_files f on f.set_id = fs.id
      join stored_files b on b.sha256 = f.sha256 where fs.shipment_id = ${id} and fs.kind = 'airbill' order by fs.id desc limit 1`,
  );
  const scans = await query<Record<string, unknown>>(
    ex,
    sql`select occurred_at as at, status, source, seller_claim as "sellerClaim", location, description
      from tracking_events where shipment_id = ${id} order by occurred_at, id`,
  );
  const trackingNumber = (s.trackingNumber as string | null) ?? null;
  return {
    shipmentId: id,
    type: String(s.type),
    state: String(s.state),
    serviceType: (s.serviceType as string | null) ?? null,
    trackingNumber,
    trackingUrl: trackingUrlOf(trackingNumber),
    carrierTracked: Boolean(s.carrierTracked),
    address: (s.address as string | null) || null,
    label: label
      ? { sha256: label.sha256, bytes: Number(label.bytes), source: label.note?.startsWith('purchased') ? 'bought' : 'uploaded' }
      : null,
    scans: scans.map((r) => ({
      at: new Date(r.at as string),
      status: String(r.status),
      source: String(r.source),
      sellerClaim: isSellerClaim({ sellerClaim: Boolean(r.sellerClaim), source: String(r.source), status: String(r.status) }),
      location: (r.location as string | null) ?? null,
      description: (r.description as string | null) ?? null,
    })),
  };
}

/** `inIssue`: one of several on the delivery issues page, under the issue's heading, so no ids of its own. */
export function renderOrderMailing(m: OrderMailing | undefined, inIssue = false): string {
  if (!m) return '';
  const [h, mailingId, scansId] = inIssue ? ['h3', '', ''] : ['h2', ' id="mailing"', ' id="scans"'];
  const tracking = m.trackingNumber
    ? m.trackingUrl
      ? `<a href="${e(m.trackingUrl)}" rel="noreferrer">${e(m.trackingNumber)}</a>`
      : e(m.trackingNumber)
    : 'none yet';
  const scans = m.scans.map(
    (s) =>
      `<tr><td>${e(isoTime(s.at))}</td><td>${e(s.status)}</td><td>${e(s.sellerClaim ? "seller's claim" : s.source)}</td><td>${e(s.location ?? '')}</td><td>${e(
        s.description ?? '',
      )}</td></tr>`,
  );
  return `<${h}>Mailing</${h}>
<table${mailingId}>
<tr><td>shipment</td><td>${e(m.shipmentId)}: ${e(m.type)}${m.serviceType ? ` (${e(m.serviceType)})` : ''}, ${e(m.state)}</td></tr>
<tr><td>ship to</td><td>${e(m.address ?? '–')}</td></tr>
<tr><td>tracking number</td><td>${tracking}${m.carrierTracked ? ' (tracked by the carrier account)' : ''}</td></tr>
<tr><td>label</td><td>${
    m.label
      ? `<a href="${e(opsLabelPath(m.shipmentId))}" target="_blank" rel="noopener">open the label (PDF)</a> · ${e(m.label.source)}, ${e(
          m.label.bytes,
        )} bytes, <span class="mono">${e(m.label.sha256.slice(0, 16))}…</span>`
      : 'none yet'
  }</td></tr>
</table>
<table${scansId}><tr><th>at</th><th>status</th><th>source</th><th>location</th><th>description</th></tr>
${scans.join('\n')}
</table>`;
}
