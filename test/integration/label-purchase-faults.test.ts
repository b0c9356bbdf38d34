import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../chaos/cluster.ts';
import { apiClient, type ApiResponse } from '../support/api.ts';
import { startEasyPostStub } from '../support/easypost-stub.ts';
import { baseFixture, BUYER_ADDRESS, SELLER } from '../support/fixtures.ts';
import { holdLock as holdLockOn } from '../support/hold-lock.ts';
import { until } from '../support/webhook-receiver.ts';

// One label per shipment through a worker fault (D-153): the carrier sells the label, the API
// records it and sends the command, and the worker is SIGKILLed before its commit. The caller's
// retry attaches the label sold, and no second one is bought.

const ORDERS = Array.from({ length: 4 }, (_, i) => 5900 + i);
/** The number of the stub's recorded label (test/easypost/shipment-bought.json). */
const BOUGHT = '1Z5R89390357567127';

describe('a label purchase through a worker killed before its commit', () => {
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
        EASYPOST_WEBHOOK_SECRET: 'whsec-label-faults',
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
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS[0]}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const mailed = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, {
      type: 'UPS',
      ship_to_address_attributes: BUYER_ADDRESS,
    });
    expect(mailed.status, JSON.stringify(mailed.body)).toBe(200);
    const id = mailed.body.id as number;

    const orderLock = await holdLock('select id from orders where id = (select order_id from shipments where id = $1) for update', [id]);
    const first = call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, {}, { 'Idempotency-Key': `label-kill-${id}` });
    await until(
      'the worker waiting on the order',
      async () => {
        const rows = await sql()`select query from pg_stat_activity where wait_event_type = 'Lock' and pid <> pg_backend_pid()`;
        return rows.some((r) => /orders/i.test(String(r.query)));
      },
      30_000,
    );
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
});
