import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUYER, SELLER, SELLER_USER } from '../support/fixtures.ts';
import { inSeconds, nextInSeries, startMailedWorld, trackerEvent, type MailedWorld } from '../support/mailed-world.ts';

// A lost envelope re-shipped on a label bought through the carrier account (D-158): the purchase
// is the airbill's (one per request race), the lost label is spent, the old number revoked.

const ORDER_IDS = Array.from({ length: 10 }, (_, i) => 5800 + i);
/** The number of the stub's recorded label (test/easypost/shipment-bought.json). */
const BOUGHT = '1Z5R89390357567127';

describe('a lost envelope re-shipped on a bought label', () => {
  let w: MailedWorld;
  // A series of its own, past the numbers of the other mailed tests.
  let number = Array.from({ length: 500 }).reduce<string>((n) => nextInSeries(n), '1Z5R89390357567136');
  const fresh = () => (number = nextInSeries(number));
  beforeAll(async () => {
    w = await startMailedWorld(ORDER_IDS);
  }, 60_000);
  afterAll(async () => {
    await w?.stop();
  });
  const buys = () => w.stub.calls.filter((c) => c.path.endsWith('/buy')).length;

  async function openIssue(orderId: number, id: number) {
    expect((await w.call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {})).body.state).toBe('in_transit');
    await w.sql()`update orders set deliver_by = ${new Date(Date.now() - 60_000).toISOString()} where id = ${orderId}`;
    const issue = await w.call(BUYER, 'POST', `/v9/orders/${orderId}/delivery_issues`, { reason: 'not_received' });
    expect(issue.status, JSON.stringify(issue.body)).toBe(201);
  }

  it("buys one new label: its number's delivered scan completes the order, the old number's does not", async () => {
    const { orderId, id } = await w.mailed();
    const code = fresh();
    expect((await w.setNumber(id, code)).status).toBe(200);
    const oldTracker = (await w.trackerOf(id))!;
    await openIssue(orderId, id);
    const before = buys();
    const res = await w.call(SELLER, 'POST', `/v9/shipments/${id}/reissue`, { buy_label: true, notes: 'new label' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      shipment_id: id,
      tracking_number: BOUGHT,
      revoked_tracking_number: code,
      purchase: { provider: 'easypost' },
      delivery_issue: { state: 'seller_responded' },
    });
    expect(buys()).toBe(before + 1);
    // The label to print is the new one.
    const [label] = await w.sql()`select f.note from shipment_file_sets s join shipment_files f on f.set_id = s.id
      where s.shipment_id = ${id} and s.kind = 'airbill' order by s.id desc limit 1`;
    expect(label?.note).toMatch(/^purchased:easypost:shp_/);
    expect(await w.state(orderId)).toMatchObject({ order: 'accepted', shipment: 'in_transit', tracking: BOUGHT });

    const old = await w.webhook(
      trackerEvent({ eventId: 'evt_label_old', trackerId: oldTracker, code, scans: [{ status: 'delivered', datetime: inSeconds(0) }] }),
    );
    expect(await old.json()).toMatchObject({ taken: true, shipment_id: id, recorded: 1 });
    expect(await w.state(orderId)).toMatchObject({ order: 'accepted', shipment: 'in_transit' });
    const fresh1 = await w.webhook(
      trackerEvent({
        eventId: 'evt_label_new',
        trackerId: (await w.trackerOf(id))!,
        code: BOUGHT,
        scans: [{ status: 'delivered', datetime: inSeconds(1) }],
      }),
    );
    expect(await fresh1.json()).toMatchObject({ taken: true, shipment_id: id, recorded: 1 });
    expect(await w.state(orderId)).toMatchObject({ order: 'completed', shipment: 'delivered' });
  });

  it('a bought label lost in its turn is replaced by another bought one; requests racing buy it once', async () => {
    const { orderId, id } = await w.mailed();
    const first = fresh();
    w.stub.setBoughtCode(first);
    try {
      const bought = await w.call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, {});
      expect(bought.status, JSON.stringify(bought.body)).toBe(200);
      expect(bought.body.tracking_number).toBe(first);
      await openIssue(orderId, id);
      const second = fresh();
      w.stub.setBoughtCode(second);
      w.stub.setBuyDelay(300);
      const before = buys();
      // Two credentials of the seller at once (the service's two upload slots, one each).
      const answers = await Promise.all(
        [SELLER, SELLER_USER].map((who) => w.call(who, 'POST', `/v9/shipments/${id}/reissue`, { buy_label: true })),
      );
      w.stub.setBuyDelay(0);
      expect(buys()).toBe(before + 1);
      expect(
        answers.map((a) => a.status),
        JSON.stringify(answers.map((a) => a.body)),
      ).toEqual([200, 200]);
      for (const a of answers) expect(a.body).toMatchObject({ tracking_number: second, revoked_tracking_number: first });
      expect(new Set(answers.map((a) => a.body.reissue_id)).size).toBe(1);
      expect(await w.state(orderId)).toMatchObject({ shipment: 'in_transit', tracking: second });

      // Lost again: the next reissue buys the next label (the spent one is not answered again).
      const third = fresh();
      w.stub.setBoughtCode(third);
      const again = await w.call(SELLER, 'POST', `/v9/shipments/${id}/reissue`, { buy_label: true });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body).toMatchObject({ tracking_number: third, revoked_tracking_number: second });
      expect(buys()).toBe(before + 2);
    } finally {
      w.stub.setBoughtCode(undefined);
      w.stub.setBuyDelay(0);
    }
  });

  it('refusals say what would be allowed and buy nothing', async () => {
    const { orderId, id } = await w.mailed();
    const code = fresh();
    expect((await w.setNumber(id, code)).status).toBe(200);
    const before = buys();
    const noIssue = await w.call(SELLER, 'POST', `/v9/shipments/${id}/reissue`, { buy_label: true });
    expect(noIssue.status).toBe(422);
    await openIssue(orderId, id);
    const both = await w.call(SELLER, 'POST', `/v9/shipments/${id}/reissue`, { buy_label: true, tracking_number: fresh() });
    expect(both.status).toBe(400);
    expect(both.body.errors[0]).toMatchObject({ field: 'tracking_number' });
    expect(both.body.errors[0].message).toContain('give buy_label alone');
    const notTrue = await w.call(SELLER, 'POST', `/v9/shipments/${id}/reissue`, { buy_label: false });
    expect(notTrue.status).toBe(400);
    const buyer = await w.call(BUYER, 'POST', `/v9/shipments/${id}/reissue`, { buy_label: true });
    expect(buyer.status).toBe(403);
    expect(buys()).toBe(before);
    expect(await w.state(orderId)).toMatchObject({ shipment: 'in_transit', tracking: code });
  });

  it('switched to an electronic delivery: a new pending shipment, the old number revoked; its link completes the order', async () => {
    const { orderId, id } = await w.mailed();
    const code = fresh();
    expect((await w.setNumber(id, code)).status).toBe(200);
    const oldTracker = (await w.trackerOf(id))!;
    const pending = await w.call(SELLER, 'POST', `/v9/shipments/${id}/reissue`, { mobile_transfer_type: 'XMobileLink' });
    expect(pending.status).toBe(422);
    await openIssue(orderId, id);
    const both = await w.call(SELLER, 'POST', `/v9/shipments/${id}/reissue`, {
      mobile_transfer_type: 'XMobileLink',
      tracking_number: fresh(),
    });
    expect(both.status).toBe(400);
    expect(both.body.errors[0]).toMatchObject({ field: 'tracking_number' });
    expect(both.body.errors[0].message).toContain('mobile_transfer_type alone');
    expect(await w.state(orderId)).toMatchObject({ shipment: 'in_transit', tracking: code });

    const res = await w.call(SELLER, 'POST', `/v9/shipments/${id}/reissue`, { mobile_transfer_type: 'XMobileLink', notes: 'by link' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      shipment_id: id,
      new_shipment: { type: 'XMobileLink', state: 'pending' },
      revoked_tracking_number: code,
      delivery_issue: { state: 'seller_responded' },
    });
    const next = res.body.new_shipment.id as number;
    expect(await w.state(orderId)).toMatchObject({ order: 'accepted', shipment: 'pending', tracking: null });

    // The envelope turns up after all: stored, revoked, nothing completes.
    const old = await w.webhook(
      trackerEvent({ eventId: 'evt_switch_old', trackerId: oldTracker, code, scans: [{ status: 'delivered', datetime: inSeconds(0) }] }),
    );
    expect(await old.json()).toMatchObject({ taken: true, recorded: 1 });
    expect(await w.state(orderId)).toMatchObject({ order: 'accepted', shipment: 'pending' });
    expect(await w.trackerOf(next)).toBeNull();
    const [kept] = await w.sql()`select revoked from tracking_events where order_id = ${orderId} and source = 'carrier'`;
    expect(kept).toMatchObject({ revoked: true });
    // Its number stays this order's.
    const other = await w.mailed();
    expect((await w.setNumber(other.id, code, false)).status).toBe(409);

    const done = await w.call(SELLER, 'PUT', `/v9/shipments/${next}/complete`, { x_mobile_link: 'https://x.test/transfer/1' });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(await w.state(orderId)).toMatchObject({ order: 'completed', shipment: 'delivered' });
    // The issue is the buyer's to close, on the new delivery.
    const resolved = await w.call(BUYER, 'POST', `/v9/delivery_issues/${res.body.delivery_issue.id}/resolve`, {});
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
  });
});
