import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, BUYER_PICKUP_BODY, SELLER_PICKUP_BODY } from '../support/api.ts';
import { baseFixture, BUYER, ORDERS, SELLER, SELLER_USER, STRANGER } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { valueWithin } from '../support/value-within.ts';

// GET /v9/events: the brokerage-wide feed, against the real service (relay, Postgres, Redis).

type Cred = typeof SELLER;
interface FeedEvent {
  id: string;
  type: string;
  order_id: number;
  seq: number;
  created_at: string;
  livemode: boolean;
  data: { event: Record<string, any>; shipment: Record<string, any> | null };
}

const EXTRA_ORDERS = Array.from({ length: 24 }, (_, i) => 800 + i);

describe('event feed', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;

  /** Every event after `after`, paging `limit` at a time; the last cursor. */
  async function drain(cred: Cred, limit = 100, after?: string): Promise<{ events: FeedEvent[]; cursor: string; pages: number }> {
    const events: FeedEvent[] = [];
    let cursor = after;
    let pages = 0;
    for (;;) {
      const q = new URLSearchParams({ limit: String(limit), ...(cursor ? { after: cursor } : {}) });
      const r = await call(cred, 'GET', `/v9/events?${q}`);
      expect(r.status).toBe(200);
      pages++;
      events.push(...r.body.events);
      cursor = r.body.next_cursor;
      if (!r.body.has_more) return { events, cursor: cursor!, pages };
    }
  }

  const outboxDrained = async () =>
    (await t.db.database.sql!`select count(*)::int as n from event_feed where position is null`)[0]!.n === 0 ? true : undefined;

  beforeAll(async () => {
    t = await startTestService({ env: { RELAY_INTERVAL_MS: '50' } });
    const fixture = baseFixture(EXTRA_ORDERS);
    await t.seed(fixture);
    call = apiClient(t.url);
  });
  let stopped = false;
  afterAll(async () => {
    if (!stopped) await t?.stop();
  });

  it('seller and buyer each see every event of their orders as their party sees it; a third brokerage sees nothing', async () => {
    const lp = (await call(SELLER, 'POST', `/v9/orders/${ORDERS.localPickup}/accept`, { reviewer_id: 100 })).body.shipments[0].id;
    const lp2 = (await call(BUYER, 'PUT', `/v9/shipments/${lp}`, BUYER_PICKUP_BODY)).body.id;
    const lp3 = (await call(SELLER, 'PUT', `/v9/shipments/${lp2}`, SELLER_PICKUP_BODY)).body.id;
    await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    await valueWithin('outbox drained', outboxDrained);

    for (const cred of [SELLER, SELLER_USER, BUYER]) {
      const { events } = await drain(cred);
      expect(events.map((e) => [e.order_id, e.seq, e.type])).toEqual([
        [ORDERS.localPickup, 1, 'shipment.created'],
        [ORDERS.localPickup, 2, 'shipment.pickup_details'],
        [ORDERS.localPickup, 3, 'shipment.delivered'],
        [ORDERS.tbd, 1, 'shipment.created'],
      ]);
      // data.event is exactly what the order's events route shows this party.
      for (const order of [ORDERS.localPickup, ORDERS.tbd]) {
        const history = (await call(cred, 'GET', `/v9/orders/${order}/events`)).body.events;
        const inFeed = events.filter((e) => e.order_id === order);
        expect(inFeed.map((e) => e.data.event)).toEqual(history);
        expect(inFeed.map((e) => e.id)).toEqual(history.map((h: { event_id: string }) => h.event_id));
        expect(inFeed.map((e) => e.created_at)).toEqual(history.map((h: { at: string }) => h.at));
      }
      // The shipment each event left, as GET /v9/shipments/:id shows it to this party.
      // The read adds the shipment's mode, which the event carries beside its data.
      const { livemode, ...read } = (await call(cred, 'GET', `/v9/shipments/${lp3}`)).body;
      expect([livemode, events[2]!.livemode]).toEqual([true, true]);
      expect(events[2]!.data.shipment).toEqual(read);
      expect(events[1]!.data.shipment).toMatchObject({ id: lp2, type: 'LocalPickup', phone_number: { number: '3125550199' } });
    }
    // Each party sees its own command ids, not the other's.
    const seller = (await drain(SELLER)).events;
    const buyer = (await drain(BUYER)).events;
    expect(seller[0]!.data.event.command_id).toEqual(expect.any(String));
    expect(buyer[0]!.data.event.command_id).toBeNull();
    expect(buyer[1]!.data.event.command_id).toEqual(expect.any(String));
    expect(seller[1]!.data.event.command_id).toBeNull();

    const stranger = await call(STRANGER, 'GET', '/v9/events');
    expect(stranger.status).toBe(200);
    expect(stranger.body).toEqual({ events: [], next_cursor: expect.any(String), has_more: false });
  });

  it('pages end to end: one at a time gives the same events as one page, with has_more until the last', async () => {
    const whole = await drain(SELLER, 1000);
    expect(whole.pages).toBe(1);
    const single = await drain(SELLER, 1);
    expect(single.pages).toBe(whole.events.length);
    expect(single.events.map((e) => e.id)).toEqual(whole.events.map((e) => e.id));
    expect(single.cursor).toBe(whole.cursor);
    // Past the end: empty, same cursor, nothing more.
    const past = await call(SELLER, 'GET', `/v9/events?after=${whole.cursor}`);
    expect(past.body).toEqual({ events: [], next_cursor: whole.cursor, has_more: false });
  });

  it('a long poll answers when an event arrives, and times out with an empty page', async () => {
    const { cursor } = await drain(BUYER);
    const empty = await call(BUYER, 'GET', `/v9/events?after=${cursor}&wait=1`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ events: [], next_cursor: cursor, has_more: false });

    // Far longer than the test could wait: an answer with the event means it was woken by it.
    const polling = call(BUYER, 'GET', `/v9/events?after=${cursor}&wait=20`);
    await valueWithin('the long poll waits', async () => ((await longPolls()) === 1 ? true : undefined));
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd2}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const woken = await polling;
    expect(woken.status).toBe(200);
    expect(woken.body.events.map((e: FeedEvent) => [e.order_id, e.type])).toEqual([[ORDERS.tbd2, 'shipment.created']]);
    expect(woken.body.next_cursor).not.toBe(cursor);
    expect(await longPolls()).toBe(0);
  });

  it('a client that goes away releases its waiter', async () => {
    const { cursor } = await drain(STRANGER);
    const gone = new AbortController();
    const polling = signedFetch(t.url, STRANGER, 'GET', `/v9/events?after=${cursor}&wait=25`, undefined, {}, gone.signal).catch(
      (err: Error) => err.name,
    );
    await valueWithin('the long poll waits', async () => ((await longPolls()) === 1 ? true : undefined));
    gone.abort();
    expect(await polling).toBe('AbortError');
    await valueWithin('the waiter released', async () => ((await longPolls()) === 0 ? true : undefined), 5_000);
  });

  it('never skips an event whose transaction commits after a later one was already listed', async () => {
    // T1 writes its event first (lower ids) but commits last; T2's event is relayed and read in between.
    const { cursor: start } = await drain(SELLER);
    const sql = t.db.database.sql!;
    const t1 = await sql.reserve();
    const t2 = await sql.reserve();
    const append = (conn: typeof t1, orderId: number, label: string) =>
      conn`with e as (insert into shipment_events (event_id, order_id, seq, kind, to_type, to_state, actor_brokerage_id, actor_role, command_id)
                  values (${label}, ${orderId}, 1, 'created', 'TBD', 'pending', 1, 'seller', ${`c-${label}`}) returning id, order_id)
           insert into event_feed (event_row_id, seller_brokerage_id, buyer_brokerage_id)
           select e.id, f.brokerage_id, o.buyer_brokerage_id from e join orders o on o.id = e.order_id join offices f on f.id = o.seller_office_id
           returning event_row_id as id`;
    const late = `gap-late-${randomUUID()}`;
    const early = `gap-early-${randomUUID()}`;
    try {
      await t1`begin`;
      const [lateRow] = await append(t1, ORDERS.tbd3, late);
      await t2`begin`;
      const [earlyRow] = await append(t2, EXTRA_ORDERS[0]!, early);
      expect(Number(lateRow!.id)).toBeLessThan(Number(earlyRow!.id));
      await t2`commit`;

      const seen = await valueWithin('the committed event in the feed', async () => {
        const page = await drain(SELLER, 100, start);
        return page.events.some((e) => e.id === early) ? page : undefined;
      });
      expect(seen.events.map((e) => e.id)).not.toContain(late);

      await t1`commit`;
      const after = await valueWithin('the late event in the feed', async () => {
        const page = await drain(SELLER, 100, seen.cursor);
        return page.events.length > 0 ? page : undefined;
      });
      expect(after.events.map((e) => e.id)).toEqual([late]);
    } finally {
      await t1`rollback`.catch(() => {});
      await t2`rollback`.catch(() => {});
      t1.release();
      t2.release();
    }
  });

  it('concurrent commands while a reader follows the feed: it receives every event exactly once', async () => {
    const { cursor: start } = await drain(SELLER);
    const received: string[] = [];
    let stop = false;
    const follower = (async () => {
      let cursor = start;
      while (!stop) {
        const r = await call(SELLER, 'GET', `/v9/events?after=${cursor}&limit=3&wait=1`);
        expect(r.status).toBe(200);
        received.push(...r.body.events.map((e: FeedEvent) => e.id));
        cursor = r.body.next_cursor;
      }
      return cursor;
    })();
    const accepted = await Promise.all(
      EXTRA_ORDERS.slice(1).map((id) => call(SELLER, 'POST', `/v9/orders/${id}/accept`, { reviewer_id: 100 })),
    );
    expect(accepted.map((r) => r.status)).toEqual(EXTRA_ORDERS.slice(1).map(() => 200));
    await valueWithin('outbox drained', outboxDrained);
    const expected = (await drain(SELLER, 1000, start)).events.map((e) => e.id);
    expect(expected).toHaveLength(EXTRA_ORDERS.length - 1);
    await valueWithin('the follower caught up', async () => (received.length >= expected.length ? true : undefined));
    stop = true;
    await follower;
    expect(received).toEqual(expected);
  });

  it('bad cursor, limit or wait: 400 in the error shape, naming the parameter', async () => {
    const cases: Array<[string, string]> = [
      ['after=nonsense!', 'after'],
      [`after=${Buffer.from('fe1:-1').toString('base64url')}`, 'after'],
      [`after=${Buffer.from('xx:5').toString('base64url')}`, 'after'],
      ['after=', 'after'],
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=ten', 'limit'],
      ['wait=31', 'wait'],
      ['wait=-1', 'wait'],
      ['wait=1.5', 'wait'],
      ['limit=1&limit=2', 'limit'],
      ['since=1', 'since'],
    ];
    for (const [query, field] of cases) {
      const r = await call(SELLER, 'GET', `/v9/events?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body, query).toEqual({ errors: [{ code: 'invalid_params', message: expect.any(String), field }] });
    }
    expect((await fetch(`${t.url}/v9/events`)).status).toBe(401);
  });

  // Last: it stops the service.
  it('shutdown answers a waiting long poll at once, with what there is', async () => {
    const { cursor } = await drain(BUYER);
    const began = Date.now();
    const polling = call(BUYER, 'GET', `/v9/events?after=${cursor}&wait=25`).then((r) => ({ ...r, at: Date.now() }));
    await valueWithin('the long poll waits', async () => ((await longPolls()) === 1 ? true : undefined));
    stopped = true;
    await t.stop();
    const answer = await polling;
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ events: [], next_cursor: cursor, has_more: false });
    // Well before its 25 s: the stop answered it rather than waiting it out.
    expect(answer.at - began).toBeLessThan(15_000);
  });

  async function longPolls(): Promise<number> {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('fulfil_feed_long_polls '));
    return Number(line?.split(' ')[1] ?? NaN);
  }
});
