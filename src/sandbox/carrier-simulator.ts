import type { SqlRunner, SqlTx } from '../db/client.ts';
import type { TrackingStatus } from '@fulfil/contract';
import { applyCarrierEvent, CARRIER_OPENING } from '../domain/carrier-event.ts';
import { openShipment } from '../domain/shipment-access.ts';
import { CARRIER_SCAN_KIND, type TimerJob } from '../timers/deadline-timers.ts';
import type { FireOutcome } from '../timers/fire-timer.ts';
import { scriptOf, testCodeOf } from './carrier-test-codes.ts';

/**
 * Test mode's carrier (D-195): a test shipment shipped with one of EasyPost's test tracking codes
 * gets its scans planned in the transaction that ships it (simulated_scans, one row a scan), and
 * each comes when due as a durable timer of kind `carrier_scan`: on the wall clock a job in Redis
 * per order (its next unfired scan), on a test clock fired by the clock's advance. A scan comes
 * through the carrier event's own path (src/domain/carrier-event.ts), as a signed EasyPost
 * webhook's does, under the order's lock; nothing leaves the machine.
 */

/** A scan a simulated day apart on a test clock. */
export const CLOCK_STEP_MS = 24 * 3600_000;
/** On the wall clock, without SANDBOX_CARRIER_STEP: a minute apart. */
export const DEFAULT_WALL_STEP_MS = 60_000;
/** The provider name the simulator's events are taken under (carrier_events): their ids never meet EasyPost's. */
export const SIMULATOR_PROVIDER = 'simulator';

/**
 * Plans the scans of a test shipment just shipped (or re-shipped with a new envelope), from the
 * order's time now (fulfil_now(): its clock's time in a command on a test-clock order). A live
 * order or a number that is no test code plans nothing. Unfired scans of the shipment's earlier
 * envelope are dropped: it is lost, and the carrier says nothing more of it. True when planned.
 */
export async function planScans(
  tx: Pick<SqlTx, 'rows'>,
  c: { orderId: number; shipmentId: number; trackingNumber: string | null; livemode: boolean },
  wallStepMs = DEFAULT_WALL_STEP_MS,
): Promise<boolean> {
  const code = c.trackingNumber === null ? undefined : testCodeOf(c.trackingNumber);
  if (c.livemode || !code) return false;
  const [order] = await tx.rows<{ now: Date | string; onClock: boolean; deliverBy: Date | string | null; seq: number }>(
    `select fulfil_now() as now, test_clock_id is not null as "onClock", deliver_by as "deliverBy",
       (select coalesce(max(seq), 0) from simulated_scans where shipment_id = $2::bigint)::int as seq
     from orders where id = $1::bigint and not livemode`,
    [c.orderId, c.shipmentId],
  );
  if (!order) return false;
  await tx.rows(`delete from simulated_scans where shipment_id = $1::bigint and fired_at is null`, [c.shipmentId]);
  const step = order.onClock ? CLOCK_STEP_MS : wallStepMs;
  const deliverBy = order.deliverBy === null ? null : new Date(order.deliverBy).getTime();
  const scans = scriptOf(code, new Date(order.now).getTime(), step, deliverBy);
  if (scans.length === 0) return false;
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  await tx.rows(
    `insert into simulated_scans (order_id, shipment_id, seq, tracking_code, status, description, location, estimated_delivery_at, due_at)
     select $1::bigint, $2::bigint, $3::int + s.n, $4::text, s.status, s.description, s.location, s.estimate::timestamptz, s.due_at::timestamptz
     from unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[]) with ordinality
       as s(status, description, location, estimate, due_at, n)`,
    [
      c.orderId,
      c.shipmentId,
      order.seq,
      c.trackingNumber,
      scans.map((s) => s.status),
      scans.map((s) => s.description),
      scans.map((s) => s.location),
      scans.map((s) => iso(s.estimatedDeliveryAt)),
      scans.map((s) => iso(s.dueAt)),
    ],
  );
  return true;
}

// The next scan of each order with one to come; wall-clock orders only (a clock's advance fires the others).
const NEXT_ON_WALL = `select s.order_id as "orderId", min(s.due_at) as "dueAt" from simulated_scans s
  where s.fired_at is null and not exists (select 1 from orders o where o.id = s.order_id and o.test_clock_id is not null)`;

const jobOf = (r: { orderId: string | number; dueAt: Date | string }): TimerJob => ({
  orderId: Number(r.orderId),
  kind: CARRIER_SCAN_KIND,
  dueAt: new Date(r.dueAt).getTime(),
});

/** The order's simulator timer to arm: its next unfired scan; none on a test clock or when all came. */
export async function carrierScanTimerOf(db: SqlRunner, orderId: number): Promise<TimerJob | undefined> {
  const [row] = await db.rows<{ orderId: string; dueAt: Date | string }>(
    `${NEXT_ON_WALL} and s.order_id = $1::bigint group by s.order_id`,
    [orderId],
  );
  return row && jobOf(row);
}

/** Every wall-clock order's next scan, a page at a time by order (simulated_scans_unfired_idx), for the sweep. */
export async function* openCarrierScans(db: SqlRunner, pageSize = 5_000): AsyncGenerator<TimerJob[]> {
  let afterId = 0;
  for (;;) {
    const rows = await db.rows<{ orderId: string; dueAt: Date | string }>(
      `${NEXT_ON_WALL} and s.order_id > $1::bigint group by s.order_id order by s.order_id limit $2::int`,
      [afterId, pageSize],
    );
    if (rows.length === 0) return;
    yield rows.map(jobOf);
    afterId = Number(rows[rows.length - 1]!.orderId);
    if (rows.length < pageSize) return;
  }
}

/** The unfired scans of a test clock's orders due by `upTo`, earliest first (the clock's advance), a job each. */
export async function carrierScansOnClock(db: SqlRunner, clockId: number, upTo: Date, limit: number): Promise<TimerJob[]> {
  const rows = await db.rows<{ orderId: string; dueAt: Date | string }>(
    `select s.order_id as "orderId", s.due_at as "dueAt" from simulated_scans s join orders o on o.id = s.order_id
     where o.test_clock_id = $1::bigint and s.fired_at is null and s.due_at <= $2::timestamptz
     order by s.due_at, s.order_id, s.seq limit $3::int`,
    [clockId, upTo.toISOString(), limit],
  );
  return rows.map(jobOf);
}

interface ScanRow {
  id: string;
  shipmentId: string;
  seq: number;
  trackingCode: string;
  status: string;
  description: string | null;
  location: string | null;
  estimate: Date | string | null;
  dueAt: Date | string;
  live: boolean;
}

/**
 * One run of an order's simulator timer, in the caller's transaction under the order's lock: the
 * order's earliest unfired scan, when due by `now` (ms), comes as a carrier event at its due time
 * and is marked fired; a second run finds it fired and takes the next, if due. Answers `next`, the
 * time of the scan after it, so the wall clock's job waits for that one.
 */
export async function fireCarrierScanIn(tx: SqlTx, job: Pick<TimerJob, 'orderId'>, now: number): Promise<FireOutcome> {
  const [order] = await tx.rows<{ id: string; sellerBrokerageId: string }>(
    `select o.id, f.brokerage_id as "sellerBrokerageId" from orders o join offices f on f.id = o.seller_office_id
     where o.id = $1::bigint for update of o`,
    [job.orderId],
  );
  if (!order) return { kind: 'finished' };
  const [scan] = await tx.rows<ScanRow>(
    `select s.id, s.shipment_id as "shipmentId", s.seq, s.tracking_code as "trackingCode", s.status, s.description, s.location,
       s.estimated_delivery_at as estimate, s.due_at as "dueAt",
       exists (select 1 from shipments h where h.id = s.shipment_id and h.replaced_by is null) as live
     from simulated_scans s where s.order_id = $1::bigint and s.fired_at is null order by s.due_at, s.seq limit 1`,
    [job.orderId],
  );
  if (!scan) return { kind: 'already_fired' };
  const dueAt = new Date(scan.dueAt).getTime();
  if (dueAt > now) return { kind: 'not_due', dueAt };
  // A shipment replaced since (another delivery method) is no envelope's any more: the scan is spent.
  if (scan.live) {
    const actor = { brokerageId: Number(order.sellerBrokerageId), userId: null, via: 'upstream' as const };
    const opened = await openShipment(tx, Number(scan.shipmentId), actor, CARRIER_OPENING);
    const at = new Date(dueAt).toISOString();
    await applyCarrierEvent(
      tx,
      opened.order,
      opened.shipment,
      {
        shipment_id: Number(scan.shipmentId),
        provider: SIMULATOR_PROVIDER,
        event_id: `sim_${scan.shipmentId}_${scan.seq}`,
        tracking_code: scan.trackingCode,
        tracker_id: null,
        estimated_delivery_at: scan.estimate === null ? null : new Date(scan.estimate).toISOString(),
        scans: [{ status: scan.status as TrackingStatus, occurred_at: at, location: scan.location, description: scan.description }],
      },
      new Date(dueAt),
    );
  }
  const [next] = await tx.rows<{ dueAt: Date | string | null }>(
    `with f as (update simulated_scans set fired_at = fulfil_now() where id = $1::bigint)
     select min(due_at) as "dueAt" from simulated_scans where order_id = $2::bigint and fired_at is null and id <> $1::bigint`,
    [scan.id, job.orderId],
  );
  return { kind: 'fired', dueAt, ...(next?.dueAt ? { next: new Date(next.dueAt).getTime() } : {}) };
}
