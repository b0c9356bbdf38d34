import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUYER, SELLER } from '../support/fixtures.ts';
import { ADDRESS, inSeconds, nextInSeries, startMailedWorld, trackerEvent, type MailedWorld } from '../support/mailed-world.ts';

// Re-shipping a lost envelope (D-155): while a delivery issue is open on a mailed shipment in
// transit, in exception or returned, the seller sends a new envelope with a new number; the old
// number is revoked: its later scans are stored, shown as revoked, and complete nothing.

const ORDER_IDS = Array.from({ length: 12 }, (_, i) => 5600 + i);

describe('a lost envelope re-shipped', () => {
  let w: MailedWorld;
  let number = '1Z5R89390357567136';
  const fresh = () => (number = nextInSeries(number));
  beforeAll(async () => {
    w = await startMailedWorld(ORDER_IDS);
  }, 60_000);
  afterAll(async () => {
    await w?.stop();
  });

  /** A tracked UPS envelope in transit past its deliver_by, and the buyer's not_received issue. */
  async function lostInTransit() {
    const { orderId, id } = await w.mailed();
    const code = fresh();
    expect((await w.setNumber(id, code)).status).toBe(200);
    expect((await w.call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {})).body.state).toBe('in_transit');
    await w.sql()`update orders set deliver_by = ${new Date(Date.now() - 60_000).toISOString()} where id = ${orderId}`;
    const issue = await w.call(BUYER, 'POST', `/v9/orders/${orderId}/delivery_issues`, { reason: 'not_received' });
    expect(issue.status, JSON.stringify(issue.body)).toBe(201);
    return { orderId, id, code, tracker: (await w.trackerOf(id))!, issueId: issue.body.id as number };
  }

  it("the new envelope's delivered scan completes the order; the old number's does not", async () => {
    const { orderId, id, code, tracker, issueId } = await lostInTransit();
    const replacement = fresh();
    const res = await w.call(SELLER, 'POST', `/v9/shipments/${id}/reissue`, { tracking_number: replacement, notes: 'sent again' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      shipment_id: id,
      tracking_number: replacement,
      revoked_tracking_number: code,
      delivery_issue: { id: issueId, state: 'seller_responded' },
    });
    expect(await w.state(orderId)).toMatchObject({ order: 'accepted', shipment: 'in_transit', tracking: replacement });
    const newTracker = await w.trackerOf(id);
    expect(newTracker).toBe(`trk_${replacement.toLowerCase()}`);

    // The old envelope turns up after all: stored, revoked, nothing completes.
    const old = await w.webhook(
      trackerEvent({ eventId: 'evt_old_envelope', trackerId: tracker, code, scans: [{ status: 'delivered', datetime: inSeconds(0) }] }),
    );
    expect(await old.json()).toMatchObject({ taken: true, shipment_id: id, recorded: 1 });
    expect(await w.state(orderId)).toMatchObject({ order: 'accepted', shipment: 'in_transit' });
    const list = (await w.call(BUYER, 'GET', `/v9/shipments/${id}/tracking_events`)).body.tracking_events;
    expect(list).toMatchObject([{ source: 'carrier', status: 'delivered', revoked: true }]);

    const second = await w.webhook(
      trackerEvent({
        eventId: 'evt_new_envelope',
        trackerId: newTracker!,
        code: replacement,
        scans: [{ status: 'delivered', datetime: inSeconds(1) }],
      }),
    );
    expect(await second.json()).toMatchObject({ taken: true, shipment_id: id, recorded: 1 });
    expect(await w.state(orderId)).toMatchObject({ order: 'completed', shipment: 'delivered' });
    const kinds = (await w.call(BUYER, 'GET', `/v9/orders/${orderId}/events`)).body.events.map((e: any) => e.kind);
    expect(kinds.at(-1)).toBe('delivered');
    expect(kinds.filter((k: string) => k === 'delivered')).toHaveLength(1);
    expect(kinds.indexOf('reissued')).toBeGreaterThan(kinds.indexOf('delivery_issue_opened'));
    // The old number stays this order's: no one else may take it.
    const other = await w.mailed();
    const taken = await w.setNumber(other.id, code, false);
    expect(taken.status).toBe(409);
  });

  it('refusals say what would be allowed: no number, a link, another envelope’s number, a delivered envelope; nothing changes', async () => {
    const { orderId, id } = await lostInTransit();
    const before = await w.state(orderId);
    const none = await w.call(SELLER, 'POST', `/v9/shipments/${id}/reissue`, { notes: 'lost' });
    expect(none.status).toBe(400);
    expect(none.body.errors[0].message).toContain('tracking_number');
    const link = await w.call(SELLER, 'POST', `/v9/shipments/${id}/reissue`, { x_mobile_link: 'https://x.test/a' });
    expect(link.status).toBe(400);
    expect(link.body.errors[0]).toMatchObject({ field: 'x_mobile_link' });
    expect(link.body.errors[0].message).toContain('give its tracking_number');
    const holder = await w.mailed();
    const held = fresh();
    expect((await w.setNumber(holder.id, held, false)).status).toBe(200);
    const copied = await w.call(SELLER, 'POST', `/v9/shipments/${id}/reissue`, { tracking_number: held });
    expect(copied.status).toBe(409);
    expect(copied.body.errors[0].code).toBe('tracking_number_in_use');
    expect(await w.state(orderId)).toEqual(before);

    // Delivered by the carrier: the answer is the evidence, not a new envelope.
    const done = await w.mailed();
    const code = fresh();
    expect((await w.setNumber(done.id, code)).status).toBe(200);
    expect((await w.call(SELLER, 'PUT', `/v9/shipments/${done.id}/complete`, {})).status).toBe(200);
    const delivered = await w.webhook(
      trackerEvent({
        eventId: 'evt_lost_refusals',
        trackerId: (await w.trackerOf(done.id))!,
        code,
        scans: [{ status: 'delivered', datetime: inSeconds(0) }],
      }),
    );
    expect(await delivered.json()).toMatchObject({ taken: true });
    expect((await w.call(BUYER, 'POST', `/v9/orders/${done.orderId}/delivery_issues`, { reason: 'not_received' })).status).toBe(201);
    const late = await w.call(SELLER, 'POST', `/v9/shipments/${done.id}/reissue`, { tracking_number: fresh() });
    expect(late.status).toBe(422);
    expect(late.body.errors[0].message).toContain('answer the issue with the evidence');
    expect(await w.state(done.orderId)).toMatchObject({ order: 'completed', shipment: 'delivered', tracking: code });
  });

  it("a returned envelope mailed anew keeps its number; its late delivered scan completes nothing, the new envelope's does", async () => {
    const { orderId, id } = await w.mailed();
    const first = fresh();
    expect((await w.setNumber(id, first)).status).toBe(200);
    const firstTracker = (await w.trackerOf(id))!;
    expect((await w.call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {})).status).toBe(200);
    const back = await w.webhook(
      trackerEvent({
        eventId: 'evt_returned_first',
        trackerId: firstTracker,
        code: first,
        scans: [{ status: 'return_to_sender', datetime: inSeconds(0) }],
      }),
    );
    expect(await back.json()).toMatchObject({ taken: true, recorded: 1 });
    expect(await w.state(orderId)).toMatchObject({ shipment: 'returned' });
    const again = await w.call(SELLER, 'PUT', `/v9/shipments/${id}`, { type: 'UPS', ship_to_address_attributes: ADDRESS });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const second = fresh();
    expect((await w.setNumber(again.body.id, second)).status).toBe(200);
    expect((await w.call(SELLER, 'PUT', `/v9/shipments/${again.body.id}/complete`, {})).status).toBe(200);
    const other = await w.mailed();
    expect((await w.setNumber(other.id, first, false)).status).toBe(409);

    const late = await w.webhook(
      trackerEvent({
        eventId: 'evt_returned_late',
        trackerId: firstTracker,
        code: first,
        scans: [{ status: 'delivered', datetime: inSeconds(1) }],
      }),
    );
    expect(await late.json()).toMatchObject({ taken: true, shipment_id: again.body.id, recorded: 1 });
    expect(await w.state(orderId)).toMatchObject({ order: 'accepted', shipment: 'in_transit' });
    const list = (await w.call(BUYER, 'GET', `/v9/shipments/${again.body.id}/tracking_events`)).body.tracking_events;
    expect(list).toMatchObject([{ status: 'delivered', revoked: true }]);
    const delivered = await w.webhook(
      trackerEvent({
        eventId: 'evt_returned_second',
        trackerId: (await w.trackerOf(again.body.id))!,
        code: second,
        scans: [{ status: 'delivered', datetime: inSeconds(2) }],
      }),
    );
    expect(await delivered.json()).toMatchObject({ taken: true, recorded: 1 });
    expect(await w.state(orderId)).toMatchObject({ order: 'completed', shipment: 'delivered' });
  });
});
