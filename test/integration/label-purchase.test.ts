import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SELLER, SELLER_USER } from '../support/fixtures.ts';
import { SELLER_THIRD, startMailedWorld, type MailedWorld } from '../support/mailed-world.ts';
import { b64, makePdf } from '../support/test-files.ts';

// One label per shipment (D-153): the purchase is claimed in Postgres before the carrier is
// called, so requests racing to buy (three credentials of one seller) buy one label; a label the
// command then refuses is refunded through the carrier and recorded.

const ORDER_IDS = Array.from({ length: 8 }, (_, i) => 5500 + i);
/** The number every label of the stub carries (test/easypost/shipment-bought.json). */
const BOUGHT = '1Z5R89390357567127';
/** A USPS number of a label sold in a lost request. */
const SOLD = '9400111202555842332669';

describe('one label per shipment', () => {
  let w: MailedWorld;
  beforeAll(async () => {
    w = await startMailedWorld(ORDER_IDS);
  }, 60_000);
  afterAll(async () => {
    await w?.stop();
  });

  const buys = () => w.stub.calls.filter((c) => c.path.endsWith('/buy')).length;
  const refunds = () => w.stub.calls.filter((c) => c.path.endsWith('/refund'));

  it('three credentials of one seller buying at once: one label bought, the same label answered to each', async () => {
    const { id } = await w.mailed();
    const before = buys();
    w.stub.setBuyDelay(400);
    let answers;
    try {
      answers = await Promise.all(
        [SELLER, SELLER_USER, SELLER_THIRD].map((cred) => w.call(cred, 'POST', `/v9/shipments/${id}/airbill`, {})),
      );
    } finally {
      w.stub.setBuyDelay(0);
    }
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(buys() - before).toBe(1);
    expect(new Set(answers.map((a) => a.body.airbill.sha256)).size).toBe(1);
    expect(answers.map((a) => a.body.tracking_number)).toEqual([BOUGHT, BOUGHT, BOUGHT]);
    const [sets] = await w.sql()`select count(*)::int as n from shipment_file_sets where shipment_id = ${id} and kind = 'airbill'`;
    expect(sets!.n).toBe(1);
    const [purchase] = await w.sql()`select state, label_id as "labelId" from label_purchases where shipment_id = ${id}`;
    expect(purchase).toEqual({ state: 'bought', labelId: 'shp_5a0f8c1d2b3e4f5a6b7c8d9e0f1a2b3c' });
    // Asked again later: the first label, nothing bought.
    expect((await w.call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, {})).body.tracking_number).toBe(BOUGHT);
    expect(buys() - before).toBe(1);
    expect(refunds()).toHaveLength(0);
  });

  it('a label bought and then refused by its command (its number held by another envelope) is refunded and recorded', async () => {
    const buyer = await w.mailed();
    // The first test's shipment holds BOUGHT: the carrier's next label carries it again (the stub's one number).
    const res = await w.call(SELLER, 'POST', `/v9/shipments/${buyer.id}/airbill`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.errors[0].code).toBe('tracking_number_in_use');
    expect(refunds().map((c) => c.path)).toEqual(['/v2/shipments/shp_5a0f8c1d2b3e4f5a6b7c8d9e0f1a2b3c/refund']);
    const [purchase] = await w.sql()`select state, note from label_purchases where shipment_id = ${buyer.id}`;
    expect(purchase!.state).toBe('voided');
    expect(purchase!.note).toMatch(/^refund submitted: the command refused the label/);
    expect(await w.state(buyer.orderId)).toMatchObject({ shipment: 'pending', tracking: null });
  });

  it('a purchase whose command was lost (its process killed after the carrier sold the label) is attached by the next request, not bought again', async () => {
    const { id } = await w.mailed('USPS');
    // A label EasyPost sold and this service stored, recorded as bought, whose command never ran.
    const donor = await w.mailed('USPS');
    const stored = await w.call(SELLER, 'POST', `/v9/shipments/${donor.id}/airbill`, {
      airbill: b64(await makePdf(1, 'sold, never attached')),
      tracking_number: SOLD,
    });
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    await w.sql()`delete from tracking_claims where order_id = ${donor.orderId}`;
    await w.sql()`insert into label_purchases (shipment_id, state, provider, label_id, tracking_code, tracker_id, service, reason, rate, sha256)
      values (${id}, 'bought', 'easypost', 'shp_sold00000000000000000000000001', ${SOLD}, null, 'Priority', 'the fastest', '7.90',
        ${stored.body.airbill.sha256})`;
    const before = buys();
    const res = await w.call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ tracking_number: SOLD, airbill: { source: 'purchased', sha256: stored.body.airbill.sha256 } });
    expect(buys()).toBe(before);
    const [row] = await w.sql()`select carrier_label_id as "labelId" from shipments where id = ${id}`;
    expect(row!.labelId).toBe('shp_sold00000000000000000000000001');
  });
});
