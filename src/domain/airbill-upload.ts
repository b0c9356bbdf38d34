import {
  airbillBody,
  Forbidden,
  InvalidParams,
  InvalidTransition,
  isMailedType,
  LabelBought,
  MAX_FILE_BYTES,
  NotFound,
  parseOrThrow,
  ShipmentReplaced,
  TrackingNumberInUse,
  type AddressAttributes,
  trackingNumberBody,
  type AirbillCommand,
  type TrackingNumberCommand,
  type ReissueCommand,
} from '@fulfil/contract';
import { undecidedIssueOf } from '../db/sql/delivery-issues.ts';
import type { SqlRunner } from '../db/database.ts';
import { fileSetsOf } from '../db/sql/file-sets.ts';
import { trackingNumberHeldElsewhere } from './tracking-claims.ts';
import { PayloadTooLarge } from '../http-errors.ts';
import { CarrierFailure, type CarrierAdapter } from '../carriers/carrier-adapter.ts';
import { checkAndStorePdf, type UploadDeps } from './file-upload.ts';
import { buyOrJoinLabel } from './label-purchase.ts';
import { assertTrackingFits, detectTrackingNumber } from './tracking-numbers.ts';
import { orderRole } from '../auth/roles.ts';

export interface AirbillDeps extends UploadDeps {
  /** The carrier account; absent or unable to buy (no EASYPOST_API_KEY): labels are uploaded. */
  carrier?: (CarrierAdapter & { readonly canBuy: boolean }) | undefined;
}

interface Standing {
  id: number;
  orderId: number;
  type: string;
  state: string;
  trackingNumber: string | null;
  carrierLabelId: string | null;
  serviceType: string | null;
  deliverBy: Date | null;
  liveId: number | null;
  role: 'seller' | 'buyer' | 'stranger';
  to: AddressAttributes | null;
  /** false: a test order, which calls no carrier (D-197). */
  livemode: boolean;
}

async function standing(db: SqlRunner, shipmentId: number, brokerageId: number): Promise<Standing> {
  const [row] = await db.rows<Record<string, unknown>>(
    `select s.id, s.order_id as "orderId", s.type, s.state, s.tracking_number as "trackingNumber", s.carrier_label_id as "carrierLabelId", s.service_type as "serviceType",
       o.deliver_by as "deliverBy", o.livemode, f.brokerage_id as "sellerBrokerageId", o.buyer_brokerage_id as "buyerBrokerageId",
       case when s.replaced_by is null then s.id else (select l.id from shipments l where l.order_id = s.order_id and l.replaced_by is null) end as "liveId",
       case when a.id is null then null else json_build_object('name', a.name, 'street_address', a.street_address, 'extended_address', a.extended_address,
         'locality', a.locality, 'region', a.region, 'postal_code', a.postal_code, 'country_code', a.country_code) end as "to"
     from shipments s join orders o on o.id = s.order_id join offices f on f.id = o.seller_office_id
       left join addresses a on a.id = s.ship_to_address_id
     where s.id = $1::bigint`,
    [shipmentId],
  );
  const role = row
    ? orderRole({ brokerageId }, { sellerBrokerageId: Number(row.sellerBrokerageId), buyerBrokerageId: Number(row.buyerBrokerageId) })
    : 'stranger';
  if (!row || role === 'stranger') throw new NotFound(`shipment ${shipmentId} not found`);
  return {
    id: Number(row.id),
    orderId: Number(row.orderId),
    type: String(row.type),
    state: String(row.state),
    trackingNumber: (row.trackingNumber as string | null) ?? null,
    carrierLabelId: (row.carrierLabelId as string | null) ?? null,
    serviceType: (row.serviceType as string | null) ?? null,
    deliverBy: row.deliverBy ? new Date(row.deliverBy as string) : null,
    liveId: row.liveId === null ? null : Number(row.liveId),
    role,
    to: (typeof row.to === 'string' ? JSON.parse(row.to) : row.to) as AddressAttributes | null,
    livemode: row.livemode !== false,
  };
}

/**
 * POST /v9/shipments/:id/airbill before its command: the label uploaded (checked and stored as
 * e-tickets are) or bought through the carrier account and stored; the command carries its hash.
 * The refusals the command would give come first, so a refused call buys nothing. An EasyPost
 * error or timeout is 502 with what EasyPost said, and nothing changes.
 */
export async function prepareAirbill(
  deps: AirbillDeps & { log?: { warn(detail: object, message: string): void } },
  shipmentId: number,
  brokerageId: number,
  body: unknown,
): Promise<AirbillCommand> {
  const text = (body as { airbill?: unknown } | null)?.airbill;
  if (typeof text === 'string' && Math.floor((text.length * 3) / 4) > MAX_FILE_BYTES + 2) {
    throw new PayloadTooLarge(`airbill: a file may be at most ${MAX_FILE_BYTES} bytes (10 MiB)`);
  }
  const parsed = parseOrThrow(airbillBody, body ?? {});
  const s = await standing(deps.database, shipmentId, brokerageId);
  if (!isMailedType(s.type)) {
    throw new InvalidTransition(
      `shipment ${shipmentId} is ${s.type}: an airbill is for a mailed shipment (PUT /v9/shipments/${shipmentId} with type FedEx, UPS, USPS or ProvidedAirbill first)`,
    );
  }
  const giver = s.type === 'ProvidedAirbill' ? 'buyer' : 'seller';
  if (s.role !== giver) throw new Forbidden(`only the ${giver} may give the airbill of a ${s.type} shipment`);
  if (s.liveId !== null && s.liveId !== shipmentId) throw new ShipmentReplaced(s.liveId);

  if ('airbill' in parsed) {
    // A bought label is the label: an upload beside it would be dropped, so it is refused (D-164).
    if (s.carrierLabelId !== null) throw new LabelBought(shipmentId);
    assertTrackingFits(s.type, parsed.tracking_number, { livemode: s.livemode });
    // Before the file is stored or a tracker registered: another envelope's number buys nothing here.
    if (s.livemode && (await trackingNumberHeldElsewhere(deps.database, s.orderId, parsed.tracking_number)))
      throw new TrackingNumberInUse();
    const { sha256 } = await checkAndStorePdf(deps, parsed.airbill, 'airbill');
    const trackerId = s.livemode ? await registerBestEffort(deps, shipmentId, parsed.tracking_number, s.type) : undefined;
    return {
      shipment_id: shipmentId,
      by: giver,
      sha256,
      tracking_number: parsed.tracking_number,
      ...(trackerId ? { tracker_id: trackerId } : {}),
    };
  }

  if (s.type === 'ProvidedAirbill') {
    throw new InvalidParams(
      'airbill: required: the buyer uploads the label of a ProvidedAirbill shipment, with its tracking_number',
      'airbill',
    );
  }
  if (!s.livemode) throw new InvalidParams(TEST_ORDER_BUYS_NO_LABEL, 'airbill');
  const carrier = deps.carrier;
  if (!carrier?.canBuy) {
    throw new InvalidParams(
      'airbill: required: no carrier account is configured to buy a label; upload the label (airbill, tracking_number)',
      'airbill',
    );
  }
  // Bought already: the command answers the first label (idempotent); nothing is bought again.
  const current = s.carrierLabelId !== null ? (await fileSetsOf(deps.database, shipmentId, 'airbill')).at(-1) : undefined;
  if (current && s.trackingNumber) {
    return {
      shipment_id: shipmentId,
      by: giver,
      sha256: current.files[0]!.sha256,
      tracking_number: s.trackingNumber,
      purchase: {
        provider: carrier.provider,
        label_id: s.carrierLabelId!,
        tracker_id: null,
        service: s.serviceType ?? '',
        reason: 'bought before',
        estimated_delivery_at: null,
        rate: null,
      },
    };
  }
  if (s.state !== 'pending') throw new InvalidTransition(`shipment ${shipmentId} is ${s.state}: its airbill can no longer change`);
  if (!s.to) throw new InvalidTransition(`shipment ${shipmentId} has no address to ship to`);
  return buyOrJoinLabel(
    { ...deps, carrier },
    { id: shipmentId, type: s.type, serviceType: s.serviceType, to: s.to, deliverBy: s.deliverBy },
    giver,
  );
}

/**
 * PUT /v9/shipments/:id/tracking before its command: with a carrier account, the number is
 * registered as a tracker, so the carrier's scans come by webhook and decide delivery (D-112).
 * Registration is best effort: should EasyPost refuse or not answer, the number is still set and
 * the seller's tracking events count (the log says why).
 */
export async function prepareTrackingNumber(
  deps: AirbillDeps & { log?: { warn(detail: object, message: string): void } },
  shipmentId: number,
  brokerageId: number,
  body: unknown,
): Promise<TrackingNumberCommand> {
  const { tracking_number } = parseOrThrow(trackingNumberBody, body ?? {});
  const command: TrackingNumberCommand = { shipment_id: shipmentId, tracking_number };
  const carrier = deps.carrier;
  if (!carrier?.canBuy) return command;
  const s = await standing(deps.database, shipmentId, brokerageId);
  // A test order's number never leaves the machine: no tracker (its command checks the number).
  if (!s.livemode) return command;
  if (s.role !== 'seller' || !isMailedType(s.type) || s.state !== 'pending' || s.trackingNumber === tracking_number) return command;
  assertTrackingFits(s.type, tracking_number, { livemode: s.livemode });
  if (await trackingNumberHeldElsewhere(deps.database, s.orderId, tracking_number)) throw new TrackingNumberInUse();
  const trackerId = await registerBestEffort(deps, shipmentId, tracking_number, s.type);
  return trackerId ? { ...command, tracker_id: trackerId } : command;
}

/**
 * POST /v9/shipments/:id/reissue with a new envelope's number (D-155): refused early when another
 * envelope holds it, else registered as a tracker (best effort, as PUT …/tracking does).
 */
export async function prepareReissueNumber(
  deps: AirbillDeps & { log?: { warn(detail: object, message: string): void } },
  shipmentId: number,
  brokerageId: number,
  trackingNumber: string,
): Promise<string | undefined> {
  const s = await standing(deps.database, shipmentId, brokerageId);
  if (s.role !== 'seller' || !isMailedType(s.type) || !['in_transit', 'exception', 'returned'].includes(s.state)) return undefined;
  assertTrackingFits(s.type, trackingNumber, { livemode: s.livemode });
  if (!s.livemode) return undefined;
  if (await trackingNumberHeldElsewhere(deps.database, s.orderId, trackingNumber)) throw new TrackingNumberInUse();
  return registerBestEffort(deps, shipmentId, trackingNumber, s.type);
}

/**
 * POST /v9/shipments/:id/reissue with `buy_label` (D-158): the new envelope's label bought through
 * the carrier account, once whatever the requests racing (the purchase row of the airbill,
 * claimed anew as the lost label is spent). The command's refusals that can be told first are.
 */
export async function prepareReissueLabel(
  deps: AirbillDeps & { log?: { warn(detail: object, message: string): void } },
  shipmentId: number,
  brokerageId: number,
): Promise<NonNullable<ReissueCommand['label']> & { tracking_number: string; tracker_id: string | null }> {
  const s = await standing(deps.database, shipmentId, brokerageId);
  if (s.role !== 'seller') throw new Forbidden(`only the seller re-ships shipment ${shipmentId}`);
  if (s.liveId !== null && s.liveId !== shipmentId) throw new ShipmentReplaced(s.liveId);
  if (!isMailedType(s.type) || s.type === 'ProvidedAirbill') {
    throw InvalidParams.at(
      'buy_label',
      `a ${s.type} shipment has no label bought by the seller; ` +
        (s.type === 'ProvidedAirbill' ? 'give the new envelope’s tracking_number' : 'a reissue gives its files, barcodes or link'),
    );
  }
  if (!['in_transit', 'exception', 'returned'].includes(s.state)) {
    throw new InvalidTransition(
      `shipment ${shipmentId} is ${s.state}: a new label replaces an envelope in transit, in exception or returned`,
    );
  }
  if (!s.livemode) {
    throw InvalidParams.at(
      'buy_label',
      "a test order buys no label (test mode calls no carrier): give the new envelope's tracking_number, one of EasyPost's test codes (EZ4000000004…) to have the carrier simulator carry it",
    );
  }
  const carrier = deps.carrier;
  if (!carrier?.canBuy) {
    throw InvalidParams.at('buy_label', "no carrier account is configured to buy a label: give the new envelope's tracking_number");
  }
  if (!s.to) throw new InvalidTransition(`shipment ${shipmentId} has no address to ship to`);
  if (!(await undecidedIssueOf(deps.database, s.orderId))) {
    throw new InvalidTransition(`order ${s.orderId} has no open delivery issue: a reissue answers one (the buyer opens it)`);
  }
  const bought = await buyOrJoinLabel(
    { ...deps, carrier },
    { id: shipmentId, type: s.type, serviceType: s.serviceType, to: s.to, deliverBy: s.deliverBy },
    'seller',
    s.carrierLabelId,
  );
  const p = bought.purchase!;
  return {
    sha256: bought.sha256,
    provider: p.provider,
    label_id: p.label_id,
    service: p.service,
    reason: p.reason,
    estimated_delivery_at: p.estimated_delivery_at,
    rate: p.rate,
    tracking_number: bought.tracking_number,
    tracker_id: p.tracker_id,
  };
}

/** A test order calls no carrier (D-197): its label is uploaded, and a test code drives the simulator. */
const TEST_ORDER_BUYS_NO_LABEL =
  "airbill: required: a test order buys no label (test mode calls no carrier); upload the label with its tracking_number, one of EasyPost's test codes (EZ4000000004…) to have the carrier simulator carry it";

/** The number as a tracker of the carrier account, when there is one; undefined when none or EasyPost refused (logged). */
async function registerBestEffort(
  deps: AirbillDeps & { log?: { warn(detail: object, message: string): void } },
  shipmentId: number,
  trackingNumber: string,
  type: string,
): Promise<string | undefined> {
  if (!deps.carrier?.canBuy) return undefined;
  try {
    const { trackerId } = await deps.carrier.registerTracker(trackingNumber, detectTrackingNumber(trackingNumber).carrier ?? type);
    return trackerId;
  } catch (err) {
    if (!(err instanceof CarrierFailure)) throw err;
    deps.log?.warn({ shipmentId, err: err.message }, 'tracker not registered: the seller reports tracking events');
    return undefined;
  }
}
