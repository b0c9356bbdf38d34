import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOCK_STEP_MS, fireCarrierScanIn, planScans } from '../../src/sandbox/carrier-simulator.ts';
import { TEST_TRACKING_CODES } from '../../src/sandbox/carrier-test-codes.ts';
import { CARRIER_SCAN_KIND } from '../../src/timers/deadline-timers.ts';
import { timerSourceOf } from '../../src/timers/timer-sources.ts';
import { apiClient } from '../support/api.ts';
import { startEasyPostStub } from '../support/easypost-stub.ts';
import { baseFixture, BUYER_ADDRESS, ORDERS, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { until } from '../support/webhook-receiver.ts';

// Issue 55, the carrier simulator: a test shipment shipped with one of EasyPost's test codes is
// carried without a network, its scans a step apart (200 ms here on the wall clock, a day on a
// test clock), through the carrier event's own path. The EasyPost stub stands for the network:
// nothing of a test order may reach it.

const TEST_SELLER = { token: 'SellerTestToken00000000000000001', secret: 'seller-test-secret-000000000000000000001' };
const REAL_UPS = '1Z999AA10123456784';

describe('the carrier simulator', () => {
  let t: TestService;
  let stub: Awaited<ReturnType<typeof startEasyPostStub>>;
  let call: ReturnType<typeof apiClient>;
  const sql = () => t.db.database.sql!;

  beforeAll(async () => {
    stub = await startEasyPostStub();
    t = await startTestService({
      env: {
        SANDBOX_CARRIER_STEP: '200ms',
        EASYPOST_API_KEY: 'EZTKtest0000000000000000000000',
        EASYPOST_WEBHOOK_SECRET: 'whsec-carrier-simulator-test',
        EASYPOST_BASE_URL: stub.baseUrl,
        EASYPOST_TIMEOUT_MS: '2000',
        EASYPOST_FROM_ADDRESS_ID: 'adr_from0000000000000000000000000001',
      },
    });
    const fixture = baseFixture();
    fixture.brokerages[0]!.credentials.push({ kind: 'api', mode: 'test', ...TEST_SELLER } as never);
    await t.seed(fixture);
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
    await stub?.close();
  });

  /** A seller-side test order, accepted, its shipment made a mailed one of `type`. */
  async function mailedTestOrder(type = 'UPS', body: object = {}): Promise<{ orderId: number; shipmentId: number }> {
    const created = await call(TEST_SELLER, 'POST', '/v9/test_helpers/orders', { role: 'seller', ...body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const orderId = created.body.id as number;
    const accepted = await call(TEST_SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const mailed = await call(TEST_SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, {
      type,
      ship_to_address_attributes: BUYER_ADDRESS,
    });
    expect(mailed.status, JSON.stringify(mailed.body)).toBe(200);
    return { orderId, shipmentId: mailed.body.id as number };
  }

  async function ship(shipmentId: number, number: string) {
    const set = await call(TEST_SELLER, 'PUT', `/v9/shipments/${shipmentId}/tracking`, { tracking_number: number });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const shipped = await call(TEST_SELLER, 'PUT', `/v9/shipments/${shipmentId}/complete`, {});
    expect(shipped.status, JSON.stringify(shipped.body)).toBe(200);
    expect(shipped.body.state).toBe('in_transit');
  }

  const scansOf = async (shipmentId: number) =>
    (await sql()`select status, occurred_at, source from tracking_events where shipment_id = ${shipmentId} order by occurred_at, id`).map(
      (r) => ({ status: r.status as string, at: new Date(r.occurred_at as string).toISOString(), source: r.source as string }),
    );
  const stateOf = async (orderId: number) =>
    (
      await sql()`select o.state as "order", s.state as shipment, s.estimated_delivery_at as estimate from orders o
        join shipments s on s.order_id = o.id and s.replaced_by is null where o.id = ${orderId}`
    )[0]!;
  const plannedOf = async (shipmentId: number) =>
    (
      await sql()`select seq, status, due_at, fired_at, estimated_delivery_at from simulated_scans where shipment_id = ${shipmentId} order by seq`
    ).map((r) => ({
      seq: r.seq as number,
      status: r.status as string,
      dueAt: new Date(r.due_at as string).toISOString(),
      fired: r.fired_at !== null,
      estimate: r.estimated_delivery_at === null ? null : new Date(r.estimated_delivery_at as string).toISOString(),
    }));

  it('EZ4000000004: in_transit, out_for_delivery, delivered come in order, a step apart, and the order completes', async () => {
    const calls = stub.calls.length;
    const { orderId, shipmentId } = await mailedTestOrder('FedEx');
    await ship(shipmentId, 'EZ4000000004');
    const planned = await plannedOf(shipmentId);
    expect(planned.map((p) => p.status)).toEqual(['in_transit', 'out_for_delivery', 'delivered']);
    const due = planned.map((p) => Date.parse(p.dueAt));
    expect([due[1]! - due[0]!, due[2]! - due[1]!]).toEqual([200, 200]);
    // The in-transit scan carries the estimate: the day the delivery comes.
    expect(planned[0]!.estimate).toBe(planned[2]!.dueAt);
    await until('the order completed by the simulated delivery', async () => (await stateOf(orderId)).order === 'completed', 15_000);
    const scans = await scansOf(shipmentId);
    expect(scans).toEqual(planned.map((p) => ({ status: p.status, at: p.dueAt, source: 'carrier' })));
    expect((await stateOf(orderId)).shipment).toBe('delivered');
    expect((await plannedOf(shipmentId)).every((p) => p.fired)).toBe(true);
    const events = await sql()`select kind, actor_reason from shipment_events where order_id = ${orderId} order by id`;
    expect(events.filter((e) => e.actor_reason === 'carrier_scan').map((e) => e.kind)).toEqual([
      'in_transit',
      'out_for_delivery',
      'delivered',
    ]);
    // Nothing left the machine.
    expect(stub.calls.length).toBe(calls);
  });

  it('EZ5000000005 ends returned', async () => {
    const { orderId, shipmentId } = await mailedTestOrder();
    await ship(shipmentId, 'EZ5000000005');
    await until('the envelope returned', async () => (await stateOf(orderId)).shipment === 'returned', 15_000);
    expect((await scansOf(shipmentId)).map((s) => s.status)).toEqual(['in_transit', 'returned']);
    expect((await stateOf(orderId)).order).toBe('accepted');
  });

  it('two test shipments carry EZ2000000002 at once, each on its own; a test code claims no number', async () => {
    const a = await mailedTestOrder('UPS');
    const b = await mailedTestOrder('USPS');
    await ship(a.shipmentId, 'EZ2000000002');
    await ship(b.shipmentId, 'ez2000000002');
    for (const s of [a, b]) {
      await until('its in-transit scan', async () => (await scansOf(s.shipmentId)).length === 1, 15_000);
      expect((await scansOf(s.shipmentId))[0]!.status).toBe('in_transit');
    }
    expect((await sql()`select count(*)::int as n from tracking_claims where order_id in ${sql()([a.orderId, b.orderId])}`)[0]!.n).toBe(0);
  });

  it('a test code on a live shipment is refused, naming the test codes; nothing changes', async () => {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const mailed = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, {
      type: 'UPS',
      ship_to_address_attributes: BUYER_ADDRESS,
    });
    expect(mailed.status).toBe(200);
    const calls = stub.calls.length;
    const refused = await call(SELLER, 'PUT', `/v9/shipments/${mailed.body.id}/tracking`, { tracking_number: 'EZ4000000004' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('tracking_number');
    for (const code of TEST_TRACKING_CODES) expect(refused.body.errors[0].message).toContain(code);
    const [row] = await sql()`select tracking_number from shipments where id = ${mailed.body.id}`;
    expect(row!.tracking_number).toBeNull();
    expect(stub.calls.length).toBe(calls);
  });

  it('a real number on a test shipment is accepted and never leaves the machine; a test order buys no label', async () => {
    const calls = stub.calls.length;
    const { orderId, shipmentId } = await mailedTestOrder('UPS');
    const buy = await call(TEST_SELLER, 'POST', `/v9/shipments/${shipmentId}/airbill`, {});
    expect(buy.status).toBe(400);
    expect(buy.body.errors[0].message).toMatch(/test order buys no label/);
    await ship(shipmentId, REAL_UPS);
    expect(stub.calls.length).toBe(calls);
    const [row] = await sql()`select carrier_tracker_id from shipments where id = ${shipmentId}`;
    expect(row!.carrier_tracker_id).toBeNull();
    expect(await plannedOf(shipmentId)).toEqual([]);
    expect((await sql()`select count(*)::int as n from tracking_claims where order_id = ${orderId}`)[0]!.n).toBe(0);
  });

  describe('on a test clock: the clock-driven path', () => {
    /** A test clock of the seller's sandbox twin at `frozen`, and a mailed test order on it. */
    async function orderOnClock(frozen: Date, body: object = {}) {
      const [twin] = await sql()`select id from brokerages where sandbox_of = 1`;
      const [clock] =
        await sql()`insert into test_clocks (brokerage_id, frozen_time) values (${twin!.id}, ${frozen.toISOString()}) returning id`;
      const clockId = Number(clock!.id);
      const { orderId, shipmentId } = await mailedTestOrder('UPS', body);
      await sql()`update orders set test_clock_id = ${clockId} where id = ${orderId}`;
      return { clockId, orderId, shipmentId };
    }

    /** The scans planned again at the clock's time, as the ship command does in a transaction on the clock. */
    async function planAt(orderId: number, shipmentId: number, code: string, at: Date) {
      await sql()`delete from simulated_scans where shipment_id = ${shipmentId}`;
      await t.db.database.transaction(async (tx) => {
        await tx.rows(`select set_config('fulfil.clock', $1, true)`, [at.toISOString()]);
        expect(await planScans(tx, { orderId, shipmentId, trackingNumber: code, livemode: false })).toBe(true);
      });
    }

    /** dueOnClock, then each job fired in its own transaction at its time, as a clock's advance does. */
    async function advance(clockId: number, upTo: Date) {
      const source = timerSourceOf(CARRIER_SCAN_KIND);
      const fired: string[] = [];
      for (;;) {
        const [job] = await source.dueOnClock(t.db.database, clockId, upTo, 10);
        if (!job) return fired;
        const outcome = await t.db.database.transaction(async (tx) => {
          // As the advance does (src/sandbox/clock-advance.ts): the clock at the timer's time, in its row and the transaction.
          await tx.rows(`update test_clocks set frozen_time = $2::timestamptz where id = $1::bigint`, [
            clockId,
            new Date(job.dueAt).toISOString(),
          ]);
          await tx.rows(`select set_config('fulfil.clock', $1, true)`, [new Date(job.dueAt).toISOString()]);
          return source.fireIn(tx, job, job.dueAt);
        });
        expect(outcome.kind).toBe('fired');
        fired.push(new Date(job.dueAt).toISOString());
      }
    }

    it('scans come a simulated day apart, at the clock times, only when the clock reaches them; none is armed on the wall clock', async () => {
      const t0 = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3600_000);
      const { clockId, orderId, shipmentId } = await orderOnClock(t0);
      await ship(shipmentId, 'EZ4000000004');
      await planAt(orderId, shipmentId, 'EZ4000000004', t0);
      const day = (n: number) => new Date(t0.getTime() + n * CLOCK_STEP_MS).toISOString();
      expect((await plannedOf(shipmentId)).map((p) => p.dueAt)).toEqual([day(1), day(2), day(3)]);
      expect(await timerSourceOf(CARRIER_SCAN_KIND).timersOf(t.db.database, orderId)).toEqual([]);
      // Up to the second day: two scans, the third waits.
      expect(await advance(clockId, new Date(day(2)))).toEqual([day(1), day(2)]);
      expect((await scansOf(shipmentId)).map((s) => s.status)).toEqual(['in_transit', 'out_for_delivery']);
      expect((await stateOf(orderId)).order).toBe('accepted');
      expect(await advance(clockId, new Date(day(4)))).toEqual([day(3)]);
      const scans = await scansOf(shipmentId);
      expect(scans).toEqual([
        { status: 'in_transit', at: day(1), source: 'carrier' },
        { status: 'out_for_delivery', at: day(2), source: 'carrier' },
        { status: 'delivered', at: day(3), source: 'carrier' },
      ]);
      // The events carry the clock's times, and the order completed at the delivery's.
      const events =
        await sql()`select kind, at from shipment_events where order_id = ${orderId} and actor_reason = 'carrier_scan' order by id`;
      expect(events.map((e) => [e.kind, new Date(e.at as string).toISOString()])).toEqual([
        ['in_transit', day(1)],
        ['out_for_delivery', day(2)],
        ['delivered', day(3)],
      ]);
      expect((await stateOf(orderId)).order).toBe('completed');
      expect(new Date((await stateOf(orderId)).estimate as string).toISOString()).toBe(day(3));
    });

    it('a scan fired twice, one after the other or at once, comes once', async () => {
      const t0 = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3600_000);
      const { orderId, shipmentId } = await orderOnClock(t0);
      await ship(shipmentId, 'EZ3000000003');
      await planAt(orderId, shipmentId, 'EZ3000000003', t0);
      const first = t0.getTime() + CLOCK_STEP_MS;
      const fire = () =>
        t.db.database.transaction(async (tx) => {
          await tx.rows(`select set_config('fulfil.clock', $1, true)`, [new Date(first).toISOString()]);
          return fireCarrierScanIn(tx, { orderId }, first);
        });
      const outcomes = await Promise.all([fire(), fire()]);
      expect(outcomes.map((o) => o.kind).sort()).toEqual(['fired', 'not_due']);
      expect(outcomes.find((o) => o.kind === 'fired')).toEqual({ kind: 'fired', dueAt: first, next: first + CLOCK_STEP_MS });
      expect(await fire()).toEqual({ kind: 'not_due', dueAt: first + CLOCK_STEP_MS });
      expect((await scansOf(shipmentId)).map((s) => s.status)).toEqual(['in_transit']);
      const [taken] =
        await sql()`select count(*)::int as n from carrier_events where provider = 'simulator' and event_id = ${`sim_${shipmentId}_1`}`;
      expect(taken!.n).toBe(1);
    });

    it('EZ8000000008: in transit, late by its estimate from the first scan, delivered two days after deliver_by', async () => {
      const t0 = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3600_000);
      const deliverBy = new Date(t0.getTime() + 3 * CLOCK_STEP_MS);
      const { clockId, orderId, shipmentId } = await orderOnClock(t0, { deliver_by: deliverBy.toISOString() });
      await ship(shipmentId, 'EZ8000000008');
      await planAt(orderId, shipmentId, 'EZ8000000008', t0);
      const late = new Date(deliverBy.getTime() + 2 * CLOCK_STEP_MS).toISOString();
      const planned = await plannedOf(shipmentId);
      expect(planned.map((p) => p.status)).toEqual(['in_transit', 'out_for_delivery', 'delivered']);
      expect(planned[0]!.estimate).toBe(late);
      expect(planned[2]!.dueAt).toBe(late);
      await advance(clockId, new Date(t0.getTime() + 2 * CLOCK_STEP_MS));
      // The estimate after the deadline is told as at_risk, and leaves the overdue timer nothing to wait for.
      expect(new Date((await stateOf(orderId)).estimate as string).getTime()).toBeGreaterThan(deliverBy.getTime());
      const risks = await sql()`select count(*)::int as n from shipment_events where order_id = ${orderId} and kind = 'at_risk'`;
      expect(risks[0]!.n).toBe(1);
      await advance(clockId, new Date(late));
      expect((await stateOf(orderId)).order).toBe('completed');
    });
  });
});
