import { sql } from 'drizzle-orm';
import { query, type Executor } from '../db/client.ts';
import { InvalidParams } from '@fulfil/contract';
import { filterConditions } from './order-filters.ts';

export interface OrderSearchRow {
  id: number;
  oid: string;
  state: string;
  delivery: string;
  sellerOfficeId: number;
  sellerOfficeName: string;
  sellerBrokerageId: number;
  sellerBrokerageName: string;
  buyerBrokerageId: number;
  buyerBrokerageName: string;
  createdAt: Date;
  updatedAt: Date;
  /** The deadline; null for an order without an in-hand date. */
  deliverBy: Date | null;
  shipment: { id: number; type: string; state: string } | null;
  /** false for a test order (shown only when the search asks for test or all modes). */
  livemode: boolean;
}

export interface OrderSearchPage {
  orders: OrderSearchRow[];
  /** Give it back as `after` for the next (older) page; absent on the last page. */
  next?: string;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;
/** Names a search takes besides the filters. */
export const PAGING_PARAMS = new Set(['after', 'limit']);

/**
 * A position in the listing: the last row's created_at in microseconds since the epoch (exact,
 * unlike a JavaScript Date) and its id, which breaks ties.
 */
function readCursor(raw: string): { micros: string; id: string } {
  const m = /^(\d{1,19})_(\d{1,16})$/.exec(raw);
  if (!m) throw new InvalidParams('after: expected the `next` value of the previous page', 'after');
  return { micros: m[1]!, id: m[2]! };
}

function pageSize(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_PAGE_SIZE;
  if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_PAGE_SIZE)
    throw new InvalidParams(`limit: expected 1 to ${MAX_PAGE_SIZE}`, 'limit');
  return Number(raw);
}

interface RawRow extends Record<string, unknown> {
  id: string | number;
  oid: string;
  state: string;
  delivery: string;
  seller_office_id: string | number;
  seller_brokerage_id: string | number;
  buyer_brokerage_id: string | number;
  created_at: string | Date;
  updated_at: string | Date;
  deliver_by: string | Date | null;
  created_us: string;
  shipment_id: string | number | null;
  shipment_type: string | null;
  shipment_state: string | null;
  livemode: boolean;
}

/**
 * Orders newest first (created_at, then id), filtered, one keyset page at a time: a page costs
 * the same at the millionth order as at the first (bench: `npm run bench -- order-search`).
 */
export async function searchOrders(ex: Executor, params: Record<string, string | undefined>): Promise<OrderSearchPage> {
  // Every bad parameter in one answer: the filters', the page size's and the cursor's.
  const problems: InvalidParams[] = [];
  const checked = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch (err) {
      if (!(err instanceof InvalidParams)) throw err;
      problems.push(err);
      return undefined;
    }
  };
  const conditions = checked(() => filterConditions(params, PAGING_PARAMS)) ?? [];
  const limit = checked(() => pageSize(params.limit)) ?? DEFAULT_PAGE_SIZE;
  const c = params.after ? checked(() => readCursor(params.after!)) : undefined;
  if (problems.length > 0) throw InvalidParams.of(problems.flatMap((p) => [{ message: p.message, field: p.field }, ...p.more]));
  if (c) {
    conditions.push(sql`(o.created_at, o.id) < ('epoch'::timestamptz + ${c.micros}::bigint * interval '1 microsecond', ${c.id}::bigint)`);
  }
  const where = conditions.length > 0 ? sql`where ${sql.join(conditions, sql` and `)}` : sql``;
  const rows = await query<RawRow>(
    ex,
    sql`select o.id, o.oid, o.state, o.delivery, o.seller_office_id, f.brokerage_id as seller_brokerage_id, o.buyer_brokerage_id,
          f.name as seller_office_name, sb.name as seller_brokerage_name, bb.name as buyer_brokerage_name,
          o.created_at, o.updated_at, o.deliver_by, (extract(epoch from o.created_at) * 1000000)::bigint::text as created_us,
          s.id as shipment_id, s.type as shipment_type, s.state as shipment_state, o.livemode
        from orders o join offices f on f.id = o.seller_office_id
        join brokerages sb on sb.id = f.brokerage_id join brokerages bb on bb.id = o.buyer_brokerage_id
        left join shipments s on s.order_id = o.id and s.replaced_by is null
        ${where}
        order by o.created_at desc, o.id desc
        limit ${limit + 1}`,
  );
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    orders: page.map((r) => ({
      id: Number(r.id),
      oid: r.oid,
      state: r.state,
      delivery: r.delivery,
      sellerOfficeId: Number(r.seller_office_id),
      sellerOfficeName: String(r.seller_office_name),
      sellerBrokerageId: Number(r.seller_brokerage_id),
      sellerBrokerageName: String(r.seller_brokerage_name),
      buyerBrokerageId: Number(r.buyer_brokerage_id),
      buyerBrokerageName: String(r.buyer_brokerage_name),
      createdAt: new Date(r.created_at),
      updatedAt: new Date(r.updated_at),
      deliverBy: r.deliver_by === null ? null : new Date(r.deliver_by),
      shipment: r.shipment_id === null ? null : { id: Number(r.shipment_id), type: r.shipment_type!, state: r.shipment_state! },
      livemode: r.livemode,
    })),
    ...(more && last ? { next: `${last.created_us}_${last.id}` } : {}),
  };
}
