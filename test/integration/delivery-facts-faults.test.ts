import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../chaos/cluster.ts';
import { apiClient, type ApiResponse } from '../support/api.ts';
import { easypostSignature, startEasyPostStub } from '../support/easypost-stub.ts';
import { baseFixture, BUYER_ADDRESS, SELLER } from '../support/fixtures.ts';
import { holdLock as holdLockOn } from '../support/hold-lock.ts';
import { until } from '../support/webhook-receiver.ts';
import { inSeconds, nextInSeries, trackerEvent } from '../support/mailed-world.ts';

// Delivery facts through faults, on built `fulfil start` processes with a private Postgres: one
// label per shipment when the worker is SIGKILLed between the carrier's sale and the commit (D-153);
// each carrier scan once when Postgres restarts while the scan is written (D-152).

const ORDERS = Array.from({ length: 4 }, (_, i) => 5900 + i);
/** The number of the stub's recorded label (test/easypost/shipment-bought.json). */
const BOUGHT = '1Z5R89390357567127';
const SECRET = 'whsec-delivery-facts-faults';

describe('delivery facts through worker and Postgres faults', () => {
  let c: Cluster;
  let stub: Awaited<ReturnType<typeof startEasyPostStub>>;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    stub = await startEasyPostStub();
    c = await startCluster({
      workers: 1,
      env: {
        COMMAND_WAIT_MS: '2000',
        RECOVERY_AFTER_MS: '1000',
        RECOVERY_EVERY_MS: '500',
        EASYPOST_API_KEY: 'EZTKtest0000000000000000000000',
        EASYPOST_WEBHOOK_SECRET: SECRET,
        EASYPOST_BASE_URL: stub.baseUrl,
        EASYPOST_TIMEOUT_MS: '2000',
        EASYPOST_FROM_ADDRESS_ID: 'adr_from0000000000000000000000000001',
      },
    });
    await c.seed(baseFixture(ORDERS));
    call = apiClient(c.apiUrl);
  }, 120_000);
  afterAll(async () => {
    await c?.stop();
    await stub?.close();
  }, 120_000);

  const sql = () => c.db.sql!;
  const buys = () => stub.calls.filter((x) => x.path.endsWith('/buy')).length;
  const holdLock = (statement: string, params: postgres.ParameterOrJSON<never>[] = []) => holdLockOn(c.pg.url, statement, params);

  const waitingOn = (query: RegExp) =>
    until(
      `a backend waiting on a lock (${query})`,
      async () => {
        const rows = await sql()`select query from pg_stat_activity where wait_event_type = 'Lock' and pid <> pg_backend_pid()`;
        return rows.some((r) => query.test(String(r.query)));
      },
      30_000,
    );
  let next = 0;
  async function mailedUps(): Promise<number> {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS[next++]}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const mailed = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, {
      type: 'UPS',
      ship_to_address_attributes: BUYER_ADDRESS,
    });
    expect(mailed.status, JSON.stringify(mailed.body)).toBe(200);
    return mailed.body.id as number;
  }

  async function retryUntilAnswered(shipmentId: number, key: string, timeoutMs = 120_000): Promise<ApiResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await call(SELLER, 'POST', `/v9/shipments/${shipmentId}/airbill`, {}, { 'Idempotency-Key': key }).catch(() => null);
      if (res && res.status !== 202 && res.status !== 503) return res;
      if (Date.now() > deadline) throw new Error(`no answer for ${key}: ${res?.status} ${JSON.stringify(res?.body)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('the worker SIGKILLed between the purchase and the commit: one label bought, attached on the retry, the same answer on replay', async () => {
    const id = await mailedUps();

    const orderLock = await holdLock('select id from orders where id = (select order_id from shipments where id = $1) for update', [id]);
    const first = call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, {}, { 'Idempotency-Key': `label-kill-${id}` });
    await waitingOn(/orders/i);
    expect(buys()).toBe(1);
    await c.kill(c.workers[0]!);
    await orderLock.release();
    expect((await first).status).toBe(202);
    const [sold] = await sql()`select state, label_id as "labelId" from label_purchases where shipment_id = ${id}`;
    expect(sold).toMatchObject({ state: 'bought' });
    const [before] = await sql()`select carrier_label_id as "labelId", tracking_number as tracking from shipments where id = ${id}`;
    expect(before).toMatchObject({ labelId: null, tracking: null });

    await c.addWorker();
    const answer = await retryUntilAnswered(id, `label-kill-${id}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ tracking_number: BOUGHT, airbill: { source: 'purchased' } });
    const replay = await retryUntilAnswered(id, `label-kill-${id}`);
    expect(replay.body, JSON.stringify(replay.body)).toEqual(answer.body);
    // Asked again without the key: the label bought is the label.
    const again = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, {});
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.tracking_number).toBe(BOUGHT);
    expect(buys()).toBe(1);
    const [after] = await sql()`select carrier_label_id as "labelId" from shipments where id = ${id} and replaced_by is null`;
    expect(after!.labelId).toBe(sold!.labelId);
    const [sets] = await sql()`select count(*)::int as n from shipment_file_sets where shipment_id = ${id} and kind = 'airbill'`;
    expect(sets!.n).toBe(1);
  }, 240_000);

  it('Postgres restarted while a carrier scan is written: the carrier retries, each scan is stored once, the order completed once', async () => {
    if (c.workers.length === 0) await c.addWorker();
    const id = await mailedUps();
    const code = nextInSeries(BOUGHT);
    const numbered = await call(SELLER, 'PUT', `/v9/shipments/${id}/tracking`, { tracking_number: code });
    expect(numbered.status, JSON.stringify(numbered.body)).toBe(200);
    expect((await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {})).body.state).toBe('in_transit');
    const [{ tracker }] = (await sql()`select carrier_tracker_id as tracker from shipments where id = ${id}`) as unknown as [
      { tracker: string },
    ];
    const body = trackerEvent({
      eventId: 'evt_pg_restart',
      trackerId: tracker,
      code,
      scans: [
        { status: 'in_transit', datetime: inSeconds(0) },
        { status: 'delivered', datetime: inSeconds(1) },
      ],
    });
    const send = () =>
      fetch(`${c.apiUrl}/carriers/easypost/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hmac-signature': easypostSignature(SECRET, body) },
        body,
      });

    const tableLock = await holdLock('lock table tracking_events in share mode');
    const first = send();
    await waitingOn(/tracking_events/i);
    c.pg.stop('fast');
    await tableLock.release();
    await first.catch(() => undefined);
    c.pg.start();
    // The carrier retries until it is answered 2xx, and a few times more (EasyPost retries on its own schedule).
    const deadline = Date.now() + 120_000;
    let taken = 0;
    while (taken < 5) {
      const res = await send().catch(() => null);
      if (res && res.status === 200) taken++;
      if (Date.now() > deadline) throw new Error(`the webhook was never taken: ${res?.status}`);
      if (!res || res.status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    await until(
      'the order completed',
      async () => {
        const [row] = await sql()`select state from orders where id = (select order_id from shipments where id = ${id})`;
        return row?.state === 'completed';
      },
      60_000,
    );
    const scans = await sql()`select status from tracking_events where order_id = (select order_id from shipments where id = ${id})
      and source = 'carrier' order by occurred_at`;
    expect(scans.map((r) => r.status).sort()).toEqual(['delivered', 'in_transit']);
    const [events] = await sql()`select count(*) filter (where kind = 'delivered')::int as delivered from shipment_events
      where order_id = (select order_id from shipments where id = ${id})`;
    expect(events!.delivered).toBe(1);
    expect(c.crashes()).toEqual([]);
  }, 240_000);
});
