import { CarrierFailed, Unavailable, type AddressAttributes, type AirbillCommand } from '@fulfil/contract';
import type { SqlRunner } from '../db/database.ts';
import { CarrierFailure, type CarrierAdapter } from '../carriers/carrier-adapter.ts';
import { checkAndStorePdf, type UploadDeps } from './file-upload.ts';

export interface PurchaseDeps extends UploadDeps {
  carrier: CarrierAdapter;
  log?: { warn(detail: object, message: string): void; info?(detail: object, message: string): void };
}

interface PurchaseRow {
  state: 'buying' | 'bought' | 'failed' | 'voided' | 'replaced';
  provider: string | null;
  labelId: string | null;
  trackingCode: string | null;
  trackerId: string | null;
  service: string | null;
  reason: string | null;
  rate: string | null;
  estimatedDeliveryAt: Date | string | null;
  sha256: string | null;
  note: string | null;
}

// Whoever writes the row buys. A purchase that failed or was voided may be tried again; one whose
// buyer died mid-way (its row older than a purchase can take) is taken over. A lost envelope's
// label (D-158) is spent: `replaced` by a reissue, or the shipment's label now ($3) when a reissue
// buys the next; a bought label not yet on the shipment is joined, never bought twice.
const CLAIM = `
insert into label_purchases (shipment_id) values ($1::bigint)
on conflict (shipment_id) do update set state = 'buying', claimed_at = now(), note = null, provider = null, label_id = null,
  tracking_code = null, tracker_id = null, service = null, reason = null, rate = null, estimated_delivery_at = null, sha256 = null
where label_purchases.state in ('failed', 'voided', 'replaced')
  or (label_purchases.state = 'bought' and label_purchases.label_id = $3)
  or (label_purchases.state = 'buying' and label_purchases.claimed_at < now() - make_interval(secs => $2::double precision / 1000))
returning shipment_id`;

const READ = `select state, provider, label_id as "labelId", tracking_code as "trackingCode", tracker_id as "trackerId", service, reason, rate,
  estimated_delivery_at as "estimatedDeliveryAt", sha256, note from label_purchases where shipment_id = $1::bigint`;

const POLL_MS = 100;

/**
 * The label of a shipment bought through the carrier account, once whatever the number of
 * requests racing (D-153): the request that claims the purchase row buys and records what the
 * carrier answered; the others wait for that row and attach the same label. A purchase the carrier
 * refuses is 502 for its buyer and for those waiting on it.
 */
export async function buyOrJoinLabel(
  deps: PurchaseDeps,
  s: { id: number; type: 'FedEx' | 'UPS' | 'USPS'; serviceType: string | null; to: AddressAttributes; deliverBy: Date | null },
  giver: 'seller' | 'buyer',
  /** The label of the lost envelope this one replaces (a reissue, D-158); null for a first label. */
  replacing: string | null = null,
): Promise<AirbillCommand> {
  const { carrier, database } = deps;
  const claimed = await database.rows(CLAIM, [s.id, carrier.purchaseMs * 2, replacing]);
  if (claimed.length === 0) return commandOf(s.id, giver, await waitForPurchase(database, s.id, carrier.purchaseMs * 2));
  let label;
  try {
    label = await carrier.buyLabel({
      reference: `fulfil-shipment-${s.id}`,
      carrier: s.type,
      serviceType: s.serviceType,
      to: s.to,
      deliverBy: s.deliverBy,
      now: new Date(),
    });
  } catch (err) {
    const note = err instanceof Error ? err.message : String(err);
    await database.rows(`update label_purchases set state = 'failed', note = $2 where shipment_id = $1::bigint`, [
      s.id,
      note.slice(0, 500),
    ]);
    if (err instanceof CarrierFailure) throw new CarrierFailed(err.message, err.code);
    throw err;
  }
  const { sha256 } = await checkAndStorePdf(deps, label.pdf, 'airbill');
  // Recorded before the command: should it be lost, the next request attaches this label, not a second one.
  await database.rows(
    `update label_purchases set state = 'bought', provider = $2, label_id = $3, tracking_code = $4, tracker_id = $5, service = $6, reason = $7,
       rate = $8, estimated_delivery_at = $9::timestamptz, sha256 = $10 where shipment_id = $1::bigint`,
    [
      s.id,
      carrier.provider,
      label.labelId,
      label.trackingCode,
      label.trackerId,
      label.service,
      label.reason,
      label.rate,
      label.estimatedDeliveryAt?.toISOString() ?? null,
      sha256,
    ],
  );
  return commandOf(s.id, giver, {
    state: 'bought',
    provider: carrier.provider,
    labelId: label.labelId,
    trackingCode: label.trackingCode,
    trackerId: label.trackerId,
    service: label.service,
    reason: label.reason,
    rate: label.rate,
    estimatedDeliveryAt: label.estimatedDeliveryAt,
    sha256,
    note: null,
  });
}

async function waitForPurchase(db: SqlRunner, shipmentId: number, waitMs: number): Promise<PurchaseRow> {
  const until = Date.now() + waitMs;
  for (;;) {
    const [row] = await db.rows<PurchaseRow>(READ, [shipmentId]);
    if (row?.state === 'bought') return row;
    if (row?.state === 'replaced') throw new Unavailable(`the label of shipment ${shipmentId} was just replaced; retry shortly`);
    if (row?.state === 'failed') throw new CarrierFailed(`the label was being bought by another request, which failed: ${row.note ?? ''}`);
    if (Date.now() >= until) {
      throw new Unavailable(`another request is buying the label of shipment ${shipmentId}; nothing was bought by this one, retry shortly`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function commandOf(shipmentId: number, giver: 'seller' | 'buyer', row: PurchaseRow): AirbillCommand {
  const estimate = row.estimatedDeliveryAt === null ? null : new Date(row.estimatedDeliveryAt).toISOString();
  return {
    shipment_id: shipmentId,
    by: giver,
    sha256: row.sha256!,
    tracking_number: row.trackingCode!,
    purchase: {
      provider: row.provider!,
      label_id: row.labelId!,
      tracker_id: row.trackerId,
      service: row.service ?? '',
      reason: row.reason ?? '',
      estimated_delivery_at: estimate,
      rate: row.rate,
    },
  };
}

/**
 * A label bought for a command that refused it (its number another envelope's, the shipment no
 * longer pending): refunded through the carrier and recorded, unless the shipment holds it after all.
 */
export async function voidRefusedLabel(deps: PurchaseDeps, shipmentId: number, labelId: string, refusal: unknown): Promise<void> {
  const held = await deps.database.rows(
    `select 1 from shipments s where s.carrier_label_id = $1 and s.replaced_by is null
       and s.order_id = (select order_id from shipments where id = $2::bigint)`,
    [labelId, shipmentId],
  );
  if (held.length > 0) return;
  let note: string;
  try {
    const { refundStatus } = await deps.carrier.voidLabel(labelId);
    note = `refund ${refundStatus}: the command refused the label: ${JSON.stringify(refusal).slice(0, 300)}`;
  } catch (err) {
    if (!(err instanceof CarrierFailure)) throw err;
    note = `refund failed (${err.message}): the command refused the label: ${JSON.stringify(refusal).slice(0, 200)}`;
    deps.log?.warn({ shipmentId, labelId, err: err.message }, 'a refused label could not be refunded: refund it by hand');
  }
  await deps.database.rows(`update label_purchases set state = 'voided', note = $3 where shipment_id = $1::bigint and label_id = $2`, [
    shipmentId,
    labelId,
    note,
  ]);
}
