import { DELIVERY_EVIDENCE_EVENT_KINDS } from '@fulfil/contract';
import type { SqlRunner } from '../db/database.ts';
import { barcodesOf } from '../db/sql/shipment-barcodes.ts';
import { isSellerClaim } from './tracking-events.ts';

/**
 * The evidence of delivery of an order (GET /v9/orders/:id/delivery_evidence) is read from
 * several places, one source each: a source answers its entries, and delivery-evidence.ts merges
 * them oldest first. A new kind of evidence is one more function here and one more line in
 * EVIDENCE_SOURCES; nothing else changes.
 */
export interface EvidenceEntry {
  at: string;
  /** What happened, a short code. */
  what: string;
  /** seller, buyer, system, carrier, one_time_link, or null when nobody did it. */
  by: string | null;
  [detail: string]: unknown;
}

export type EvidenceSource = (db: SqlRunner, orderId: number) => Promise<EvidenceEntry[]>;

const iso = (v: unknown) => new Date(v as string).toISOString();
const parse = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;

/** Never a full address: an IPv4 address to its /24, an IPv6 one to its /48. */
export function maskAddress(address: string | null): string | null {
  if (!address) return null;
  const v4 = /^(?:::ffff:)?(\d+)\.(\d+)\.(\d+)\.\d+$/.exec(address);
  if (v4) return `${v4[1]}.${v4[2]}.${v4[3]}.0/24`;
  if (address.includes(':')) return `${address.split(':').slice(0, 3).join(':')}::/48`;
  return null;
}

/** Each e-ticket upload and proof of transfer, and when a later upload replaced it. */
const fileSets: EvidenceSource = async (db, orderId) => {
  const rows = await db.rows<Record<string, unknown>>(
    `select s.id, s.kind, s.created_at, s.replaced_at, case when s.brokerage_id = f.brokerage_id then 'seller' else 'buyer' end as role,
       coalesce((select json_agg(json_build_object('id', x.id, 'seat', x.seat, 'barcode', x.barcode) order by x.position)
         from shipment_files x where x.set_id = s.id), '[]'::json) as files
     from shipment_file_sets s join orders o on o.id = s.order_id join offices f on f.id = o.seller_office_id
     where s.order_id = $1::bigint order by s.id`,
    [orderId],
  );
  return rows.flatMap((r) => {
    const files = parse<Array<{ id: number; seat: string | null; barcode: string | null }>>(r.files);
    const set = Number(r.id);
    // A label is listed from its event (airbill_created), which also says its tracking number.
    if (r.kind === 'airbill') return [];
    if (r.kind !== 'etickets')
      return [
        {
          at: iso(r.created_at),
          what: 'transfer_proof_uploaded',
          by: r.role as string,
          set_id: set,
          file_ids: files.map((f) => Number(f.id)),
        },
      ];
    const uploaded: EvidenceEntry = {
      at: iso(r.created_at),
      what: 'etickets_uploaded',
      by: r.role as string,
      set_id: set,
      etickets: files.map((f) => ({ ...f, id: Number(f.id) })),
    };
    return r.replaced_at
      ? [uploaded, { at: iso(r.replaced_at), what: 'etickets_replaced', by: r.role as string, set_id: set }]
      : [uploaded];
  });
};

/** Each download of an e-ticket by a party. */
const downloads: EvidenceSource = async (db, orderId) => {
  const rows = await db.rows<Record<string, unknown>>(
    `select file_id, role, user_id, at from file_downloads where order_id = $1::bigint order by id`,
    [orderId],
  );
  return rows.map((r) => ({
    at: iso(r.at),
    what: 'eticket_downloaded',
    by: r.role as string,
    eticket_id: Number(r.file_id),
    user_id: r.user_id === null ? null : Number(r.user_id),
  }));
};

/** One-time links: made by a party, used (without credentials) from a masked address. */
const links: EvidenceSource = async (db, orderId) => {
  const rows = await db.rows<Record<string, unknown>>(
    `select l.file_id, left(l.token_sha256, 12) as ref, l.created_at, l.expires_at, l.used_at, l.used_by,
       case when l.brokerage_id = o2.seller then 'seller' else 'buyer' end as role
     from file_links l join shipment_files x on x.id = l.file_id join shipment_file_sets s on s.id = x.set_id
       join (select o.id, f.brokerage_id as seller from orders o join offices f on f.id = o.seller_office_id) o2 on o2.id = s.order_id
     where s.order_id = $1::bigint order by l.created_at`,
    [orderId],
  );
  return rows.flatMap((r) => {
    // `link`: which link, as the start of its token's sha256 (never the token): pairs a use with its making.
    const link = r.ref as string;
    const made: EvidenceEntry = {
      at: iso(r.created_at),
      what: 'link_created',
      by: r.role as string,
      link,
      eticket_id: Number(r.file_id),
      expires_at: iso(r.expires_at),
    };
    if (!r.used_at) return [made];
    const from = maskAddress(r.used_by as string | null);
    return [made, { at: iso(r.used_at), what: 'link_used', by: 'one_time_link', link, eticket_id: Number(r.file_id), from }];
  });
};

/** The barcodes the live shipment gave, and those a reissue revoked. */
const barcodes: EvidenceSource = async (db, orderId) => {
  const [live] = await db.rows<{ id: string }>(`select id from shipments where order_id = $1::bigint and replaced_by is null`, [orderId]);
  if (!live) return [];
  return (await barcodesOf(db, Number(live.id))).flatMap((b) => {
    const fact = { seat: b.seat, [b.key]: b.value };
    const given: EvidenceEntry = {
      at: b.givenAt.toISOString(),
      what: 'barcode_given',
      by: 'seller',
      ...fact,
      source: b.source,
      reissue_id: b.givenBy,
    };
    return b.revokedAt
      ? [given, { at: b.revokedAt.toISOString(), what: 'barcode_revoked', by: 'seller', ...fact, reissue_id: b.revokedBy }]
      : [given];
  });
};

/** The order's events that say what happened to the tickets or to a delivery issue. */
const events: EvidenceSource = async (db, orderId) => {
  const rows = await db.rows<Record<string, unknown>>(
    `select kind, at, actor_type, actor_role, actor_reason, details, shipment_id from shipment_events
     where order_id = $1::bigint and kind = any($2::text[]) order by seq`,
    [orderId, [...DELIVERY_EVIDENCE_EVENT_KINDS]],
  );
  return rows.flatMap((r) => {
    const details = parse<Record<string, unknown> | null>(r.details) ?? {};
    const what = evidenceWhat(r.kind as string, details);
    if (!what) return [];
    const issue = details.delivery_issue as { id: number; state: string; notes?: string | null } | undefined;
    const by = r.actor_type === 'system' ? 'system' : (r.actor_role as string);
    const entry: EvidenceEntry = {
      at: iso(r.at),
      what,
      by,
      shipment_id: r.shipment_id === null ? null : Number(r.shipment_id),
    };
    if (r.actor_type === 'system') entry.reason = r.actor_reason;
    if (issue) Object.assign(entry, { delivery_issue_id: issue.id, state: issue.state });
    if (r.kind === 'completed' && details.tickets) entry.tickets = details.tickets;
    if (r.kind === 'reissued') Object.assign(entry, { reissue_id: details.reissue_id, set_id: details.set_id ?? null });
    if (r.kind === 'airbill_created' || r.kind === 'in_transit') entry.tracking_number = details.tracking_number ?? null;
    if (what === 'airbill_created') {
      const airbill = details.airbill as { source: string; sha256: string; bytes: number } | null;
      Object.assign(entry, { source: airbill?.source ?? null, sha256: airbill?.sha256 ?? null, bytes: airbill?.bytes ?? null });
    }
    if (details.outcome) entry.outcome = details.outcome;
    const notes = wordsOf(r.kind as string, details);
    if (notes !== undefined) entry.notes = notes;
    return [entry];
  });
};

/**
 * What an event is in the evidence: a label (`airbill_created`) or a tracking number given alone
 * (`tracking_number_set`), the seller's shipping (`shipped`; a carrier's in_transit is a
 * tracking_scan), or the event's own kind.
 */
function evidenceWhat(kind: string, details: Record<string, unknown>): string | undefined {
  if (kind === 'airbill_created') return details.airbill ? 'airbill_created' : 'tracking_number_set';
  if (kind === 'in_transit') return details.shipped_by ? 'shipped' : undefined;
  return kind;
}

/** A party's or the operator's words in a step: the buyer's on opening, resolving or escalating, the seller's answer, the close's. */
function wordsOf(kind: string, details: Record<string, unknown>): string | null | undefined {
  if (kind === 'delivery_issue_opened') return (details.delivery_issue as { notes?: string | null } | undefined)?.notes ?? null;
  if (kind === 'delivery_issue_responded') return (details.response as { notes?: string | null } | undefined)?.notes ?? null;
  if (kind === 'reissued' || kind.startsWith('delivery_issue_')) return (details.notes as string | null | undefined) ?? null;
  return undefined;
}

/**
 * Every source of evidence, in the order entries of the same instant are listed. The mailed
 * tickets' carrier scans are added here as one more source (a `trackingScans` function above).
 */
/**
 * A mailed shipment's tracking scans, at the time they say they happened: the carrier's (through
 * its account's webhooks) and the seller's own reports, a seller's `delivered` on a
 * carrier-tracked shipment marked as the seller's claim.
 */
const trackingScans: EvidenceSource = async (db, orderId) => {
  const rows = await db.rows<Record<string, unknown>>(
    `select source, status, occurred_at, location, description, seller_claim, held, time_flag, reported_time, revoked
     from tracking_events where order_id = $1::bigint order by occurred_at, id`,
    [orderId],
  );
  return rows.map((r) => ({
    at: iso(r.occurred_at),
    what: 'tracking_scan',
    by: r.source === 'carrier' ? 'carrier' : 'seller',
    status: r.status as string,
    location: (r.location as string | null) ?? null,
    description: (r.description as string | null) ?? null,
    seller_claim: isSellerClaim({ sellerClaim: Boolean(r.seller_claim), source: String(r.source), status: String(r.status) }),
    // A scan held by a proposed cancellation, or dated when it came: said so (D-152).
    ...(r.held ? { held: true } : {}),
    ...(r.revoked ? { revoked: true } : {}),
    ...(r.time_flag ? { time_flag: r.time_flag as string, reported_time: (r.reported_time as string | null) ?? null } : {}),
  }));
};

export const EVIDENCE_SOURCES: readonly EvidenceSource[] = [fileSets, links, downloads, barcodes, trackingScans, events];
