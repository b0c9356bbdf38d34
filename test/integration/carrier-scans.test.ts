import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUYER, SELLER } from '../support/fixtures.ts';
import { inSeconds, nextInSeries, startMailedWorld, trackerEvent, type MailedWorld } from '../support/mailed-world.ts';

// Scans are facts, never refused (D-152), and who may say what (D-154): every verified carrier
// scan is stored whatever the order's state, its effect applied when the state allows it; a time
// no envelope was scanned at is the seller's 400 and the carrier's flag; the seller's word never
// moves an envelope the carrier tracks.

const ORDER_IDS = Array.from({ length: 20 }, (_, i) => 5400 + i);

describe('carrier scans and the seller’s word', () => {
  let w: MailedWorld;
  let number = '1Z5R89390357567154';
  /** A UPS number of no other envelope here. */
  const fresh = () => (number = nextInSeries(number));
  beforeAll(async () => {
    w = await startMailedWorld(ORDER_IDS);
  }, 60_000);
  afterAll(async () => {
    await w?.stop();
  });

  /** A mailed order in transit under a carrier tracker: its order id, shipment id, number and tracker. */
  async function trackedInTransit() {
    const { orderId, id } = await w.mailed();
    const code = fresh();
    expect((await w.setNumber(id, code)).status).toBe(200);
    expect((await w.call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {})).body.state).toBe('in_transit');
    return { orderId, id, code, tracker: (await w.trackerOf(id))! };
  }

  const events = async (id: number) => (await w.call(BUYER, 'GET', `/v9/shipments/${id}/tracking_events`)).body.tracking_events;

  it('a delivered scan during a proposed cancellation is stored and held; withdrawn, the order completes as the scan says', async () => {
    const { orderId, id, code, tracker } = await trackedInTransit();
    expect((await w.call(BUYER, 'POST', `/v9/orders/${orderId}/cancel`, {})).body.state).toBe('cancel_proposed');
    const body = trackerEvent({
      eventId: 'evt_held_delivered',
      trackerId: tracker,
      code,
      scans: [{ status: 'delivered', datetime: inSeconds(0) }],
    });
    const res = await w.webhook(body);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ taken: true, shipment_id: id, recorded: 1, reason: null });
    expect(await w.state(orderId)).toMatchObject({ order: 'cancel_proposed', shipment: 'in_transit' });
    expect(await events(id)).toMatchObject([{ source: 'carrier', status: 'delivered', held: true, seller_claim: false }]);
    // EasyPost retries: the same answer, nothing stored twice.
    expect(await (await w.webhook(body)).json()).toEqual({ taken: true, shipment_id: id, recorded: 1, reason: null });

    const withdrawn = await w.call(BUYER, 'DELETE', `/v9/orders/${orderId}/cancel`);
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body.state).toBe('completed');
    expect(await w.state(orderId)).toMatchObject({ order: 'completed', shipment: 'delivered' });
    expect(await events(id)).toMatchObject([{ status: 'delivered', held: false }]);
    const history = (await w.call(SELLER, 'GET', `/v9/orders/${orderId}/events`)).body.events;
    expect(history.slice(-3).map((e: any) => e.kind)).toEqual(['cancel_proposed', 'cancel_withdrawn', 'delivered']);
    expect(history.at(-1)).toMatchObject({ actor: { type: 'system', reason: 'carrier_scan' }, to_state: 'delivered' });
  });

  it('a scan during a proposal the other party confirms stays in the evidence of the canceled order', async () => {
    const { orderId, id, code, tracker } = await trackedInTransit();
    expect((await w.call(SELLER, 'POST', `/v9/orders/${orderId}/cancel`, {})).status).toBe(200);
    const res = await w.webhook(
      trackerEvent({
        eventId: 'evt_held_canceled',
        trackerId: tracker,
        code,
        scans: [{ status: 'return_to_sender', datetime: inSeconds(0) }],
      }),
    );
    expect(await res.json()).toMatchObject({ taken: true, recorded: 1 });
    expect((await w.call(BUYER, 'POST', `/v9/orders/${orderId}/cancel`, {})).body.state).toBe('canceled');
    expect(await events(id)).toMatchObject([{ source: 'carrier', status: 'returned' }]);
    const evidence = await w.call(BUYER, 'GET', `/v9/orders/${orderId}/delivery_evidence`);
    expect(evidence.body.timeline.filter((e: any) => e.what === 'tracking_scan')).toMatchObject([
      { by: 'carrier', status: 'returned', held: true, seller_claim: false },
    ]);
  });

  it("a seller's time in the future, before the shipment existed, or outside 2000-2100 is 400 naming occurred_at; the dates of year 0000 and 0001 never become a job", async () => {
    const { orderId, id } = await w.mailed();
    expect((await w.setNumber(id, fresh(), false)).status).toBe(200);
    expect((await w.call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {})).status).toBe(200);
    const before = await w.state(orderId);
    const commands = async () => (await w.sql()`select count(*)::int as n from commands`)[0]!.n;
    const count = await commands();
    const post = (occurred_at: string, status = 'in_transit') =>
      w.call(SELLER, 'POST', `/v9/shipments/${id}/tracking_events`, { status, occurred_at });
    for (const [at, message] of [
      ['0000-01-01T00:00:00Z', 'between the years 2000 and 2100'],
      ['0001-06-01T12:00:00Z', 'between the years 2000 and 2100'],
      ['2030-01-01T00:00:00Z', 'more than 10 minutes ahead'],
      [inSeconds(3600), 'more than 10 minutes ahead'],
    ] as const) {
      const res = await post(at, 'delivered');
      expect(res.status, at).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ code: 'invalid_params', field: 'occurred_at' });
      expect(res.body.errors[0].message).toContain(message);
      expect(res.headers.get('x-command-id')).toBeNull();
    }
    expect(await commands()).toBe(count);
    const early = await post(inSeconds(-3600));
    expect(early.status).toBe(400);
    expect(early.body.errors[0]).toMatchObject({ field: 'occurred_at' });
    expect(early.body.errors[0].message).toContain('before the shipment existed');
    expect(await w.state(orderId)).toEqual(before);
    expect(await events(id)).toEqual([]);
  });

  it('a carrier event with one unusable time keeps its delivered scan; the bad ones are stored at the time they came, flagged', async () => {
    const { orderId, id, code, tracker } = await trackedInTransit();
    const deliveredAt = inSeconds(0);
    const body = (eventId: string) =>
      trackerEvent({
        eventId,
        trackerId: tracker,
        code,
        scans: [
          { status: 'in_transit', datetime: '0000-01-01T00:00:00Z' },
          { status: 'failure', datetime: '2099-12-31T00:00:00Z' },
          { status: 'out_for_delivery', datetime: '2001-01-01T00:00:00Z' },
          { status: 'delivered', datetime: deliveredAt },
        ],
      });
    const res = await w.webhook(body('evt_bad_times_1'));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ taken: true, recorded: 4 });
    expect(await w.state(orderId)).toMatchObject({ order: 'completed', shipment: 'delivered' });
    const flags = Object.fromEntries((await events(id)).map((e: any) => [e.status, [e.time_flag, e.reported_time]]));
    expect(flags).toEqual({
      in_transit: ['out_of_range', '0000-01-01T00:00:00Z'],
      exception: ['future', '2099-12-31T00:00:00Z'],
      out_for_delivery: ['before_shipment', '2001-01-01T00:00:00Z'],
      delivered: [null, null],
    });
    // The carrier sends its whole list again with its next event: each scan is still stored once.
    expect(await (await w.webhook(body('evt_bad_times_2'))).json()).toMatchObject({ taken: true, recorded: 0 });
    expect(await events(id)).toHaveLength(4);
  });

  it('the same event sent five times at once, and the same scan for two numbers: each scan once, each to its own order', async () => {
    const a = await trackedInTransit();
    const b = await trackedInTransit();
    const at = inSeconds(0);
    const body = trackerEvent({
      eventId: 'evt_five_times',
      trackerId: a.tracker,
      code: a.code,
      scans: [{ status: 'delivered', datetime: at }],
    });
    const answers = await Promise.all(Array.from({ length: 5 }, () => w.webhook(body)));
    for (const r of answers) expect(r.status).toBe(200);
    const other = await w.webhook(
      trackerEvent({ eventId: 'evt_same_scan_b', trackerId: b.tracker, code: b.code, scans: [{ status: 'delivered', datetime: at }] }),
    );
    expect(await other.json()).toMatchObject({ taken: true, shipment_id: b.id, recorded: 1 });
    for (const o of [a, b]) {
      expect(await w.state(o.orderId)).toMatchObject({ order: 'completed', shipment: 'delivered' });
      expect(await events(o.id)).toHaveLength(1);
      const kinds = (await w.call(SELLER, 'GET', `/v9/orders/${o.orderId}/events`)).body.events.map((e: any) => e.kind);
      expect(kinds.filter((k: string) => k === 'delivered')).toHaveLength(1);
    }
  });

  it('one event per status change, not one per scan: three depots in transit are one shipment.in_transit', async () => {
    const { orderId, id, code, tracker } = await trackedInTransit();
    const res = await w.webhook(
      trackerEvent({
        eventId: 'evt_depots',
        trackerId: tracker,
        code,
        scans: [
          { status: 'in_transit', datetime: inSeconds(0) },
          { status: 'in_transit', datetime: inSeconds(1) },
          { status: 'in_transit', datetime: inSeconds(2) },
          { status: 'out_for_delivery', datetime: inSeconds(3) },
          { status: 'out_for_delivery', datetime: inSeconds(4) },
        ],
      }),
    );
    expect(await res.json()).toMatchObject({ taken: true, recorded: 5 });
    expect(await events(id)).toHaveLength(5);
    const kinds = (await w.call(BUYER, 'GET', `/v9/orders/${orderId}/events`)).body.events.map((e: any) => e.kind);
    // The seller's shipping, then the carrier's first in_transit and its out_for_delivery.
    expect(kinds.slice(-3)).toEqual(['in_transit', 'in_transit', 'out_for_delivery']);
    expect(kinds.filter((k: string) => k === 'out_for_delivery')).toHaveLength(1);

    // The list pages by the carrier's time, the time each came beside it.
    const all = await events(id);
    const seen: any[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 5; pages++) {
      const q: string = cursor ? `page[items]=2&page[cursor]=${cursor}` : 'page[items]=2';
      const page = await w.call(BUYER, 'GET', `/v9/shipments/${id}/tracking_events?${q}`);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      expect(page.body.tracking_events.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.tracking_events);
      cursor = page.body.next_cursor;
      if (cursor === null) break;
    }
    expect(cursor).toBeNull();
    expect(seen).toEqual(all);
    expect(seen.map((e) => e.occurred_at)).toEqual([...seen.map((e) => e.occurred_at)].sort());
    expect(seen[0]).toHaveProperty('recorded_at');
    const bad = await w.call(BUYER, 'GET', `/v9/shipments/${id}/tracking_events?page[cursor]=nope&page[items]=0`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.field).sort()).toEqual(['page[cursor]', 'page[items]']);
  });

  it("a seller's returned, then delivered, on a bought label are claims: the carrier's scan alone delivers", async () => {
    const { orderId, id } = await w.mailed();
    const bought = await w.call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, {});
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    expect((await w.call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {})).body.state).toBe('in_transit');
    const claim = async (status: string) => {
      const res = await w.call(SELLER, 'POST', `/v9/shipments/${id}/tracking_events`, { status, occurred_at: inSeconds(0) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ state: 'in_transit', tracking_event: { status, source: 'seller', seller_claim: true } });
    };
    await claim('returned');
    // Not returned: the envelope's number stays the one the carrier tracks.
    expect((await w.setNumber(id, fresh(), false)).status).toBe(422);
    await claim('delivered');
    expect(await w.state(orderId)).toMatchObject({ order: 'accepted', shipment: 'in_transit' });
    const res = await w.webhook(
      trackerEvent({
        eventId: 'evt_bought_delivered',
        trackerId: (await w.trackerOf(id))!,
        code: bought.body.tracking_number,
        scans: [{ status: 'delivered', datetime: inSeconds(1) }],
      }),
    );
    expect(await res.json()).toMatchObject({ taken: true, shipment_id: id, recorded: 1 });
    expect(await w.state(orderId)).toMatchObject({ order: 'completed', shipment: 'delivered' });
  });

  it("a seller's events on an uploaded number with a tracker are claims too; its returned moves nothing", async () => {
    const { orderId, id } = await trackedInTransit();
    const res = await w.call(SELLER, 'POST', `/v9/shipments/${id}/tracking_events`, { status: 'returned', occurred_at: inSeconds(0) });
    expect(res.body).toMatchObject({ state: 'in_transit', tracking_event: { seller_claim: true } });
    expect(await w.state(orderId)).toMatchObject({ order: 'accepted', shipment: 'in_transit' });
  });

  it("from pending (never shipped) a seller's delivered is 422, without a tracker too; nothing changes", async () => {
    const { orderId, id } = await w.mailed('USPS');
    expect((await w.setNumber(id, '9400111202555842332669', false)).status).toBe(200);
    const res = await w.call(SELLER, 'POST', `/v9/shipments/${id}/tracking_events`, { status: 'delivered', occurred_at: inSeconds(0) });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].message).toContain('never shipped');
    expect(await w.state(orderId)).toMatchObject({ order: 'accepted', shipment: 'pending' });
    expect(await events(id)).toEqual([]);
  });
});
