import { eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { brokerages, offices } from '../db/schema.ts';
import { liveShipmentOf } from '../read/live-shipment.ts';
import { shipmentReadJson } from '../read/shipment-json.ts';
import { escapeHtml as e } from './html.ts';

/** Who the order's parties are, by name: operators know brokerages and offices by name, not by id. */
export interface OrderParties {
  sellerOfficeName: string;
  sellerBrokerageId: number;
  sellerBrokerageName: string;
  buyerBrokerageName: string;
}

export async function loadOrderParties(ex: Executor, sellerOfficeId: number, buyerBrokerageId: number): Promise<OrderParties> {
  const [seller] = await ex
    .select({ office: offices.name, brokerageId: brokerages.id, brokerage: brokerages.name })
    .from(offices)
    .innerJoin(brokerages, eq(brokerages.id, offices.brokerageId))
    .where(eq(offices.id, sellerOfficeId));
  const [buyer] = await ex.select({ name: brokerages.name }).from(brokerages).where(eq(brokerages.id, buyerBrokerageId));
  return {
    sellerOfficeName: seller?.office ?? '?',
    sellerBrokerageId: seller?.brokerageId ?? 0,
    sellerBrokerageName: seller?.brokerage ?? '?',
    buyerBrokerageName: buyer?.name ?? '?',
  };
}

/**
 * What the buyer has been sent: the live shipment exactly as the buyer reads it
 * (GET /v9/shipments/:id, the same renderer), so support answers "what did they get?" from the
 * page: the link, the recipient, the pickup details. Undefined before the order is accepted.
 */
export async function loadWhatWasSent(ex: Executor, orderId: number): Promise<Record<string, unknown> | undefined> {
  const live = await liveShipmentOf(ex, orderId);
  return live && (shipmentReadJson(live.shipment, live.contacts) as Record<string, unknown>);
}

const LABELS: Record<string, string> = {
  x_mobile_link: 'link',
  ship_to_name: 'recipient name',
  email_address: 'recipient email',
  phone_number: 'buyer phone',
  ship_from_name: 'pickup: seller contact',
  ship_from_address: 'pickup: address',
  ship_from_phone_number: 'pickup: seller phone',
  pickup_time_range: 'pickup: when',
  pickup_instructions: 'pickup: instructions',
  notes: 'notes',
};

function shown(value: unknown): string {
  if (value === null || value === undefined || value === '') return '–';
  if (typeof value !== 'object') return e(value);
  // A contact (address, phone, email) as one line of its parts; its row's id and times are not what was sent.
  return e(
    Object.entries(value as Record<string, unknown>)
      .filter(([k, v]) => k !== 'id' && !k.endsWith('_at') && v !== null && v !== undefined && v !== '')
      .map(([, v]) => (typeof v === 'object' ? JSON.stringify(v) : String(v)))
      .join(', '),
  );
}

export function renderWhatWasSent(
  order: { recipientName: string; recipientEmail: string },
  sent: Record<string, unknown> | undefined,
): string {
  const rows = [`<tr><td>order recipient</td><td>${e(order.recipientName)} &lt;${e(order.recipientEmail)}&gt;</td></tr>`];
  if (!sent)
    return `<table id="sent" class="facts">${rows[0]}<tr><td>shipment</td><td>none yet: the order has not been accepted</td></tr></table>`;
  rows.push(`<tr><td>shipment</td><td>#${e(sent.id)} ${e(sent.type)} · ${e(sent.state)}</td></tr>`);
  for (const [key, label] of Object.entries(LABELS)) {
    if (!(key in sent)) continue;
    const value = sent[key];
    const cell =
      key === 'x_mobile_link' && typeof value === 'string' ? `<a href="${e(value)}" rel="noreferrer">${e(value)}</a>` : shown(value);
    rows.push(`<tr data-field="${e(key)}"><td>${e(label)}</td><td>${cell}</td></tr>`);
  }
  return `<table id="sent" class="facts">\n${rows.join('\n')}\n</table>`;
}
