import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type ApiResponse } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { signedWith, startReceiver, until } from '../support/webhook-receiver.ts';
import { runCli } from '../support/cli.ts';
import { b64, makePdf } from '../support/test-files.ts';

// Issue 55, test clocks: an order made on a clock lives at its time; an advance fires what falls
// due in between, in time order, once each, stamped with the clock time it fell due at.

const TEST_SELLER = { token: 'SellerClockToken0000000000000001', secret: 'seller-clock-secret-00000000000000000001' };
const OTHER_TEST = { token: 'BuyerClockToken00000000000000002', secret: 'buyer-clock-secret-000000000000000000002' };

function fixture() {
  const f = baseFixture();
  f.brokerages[0]!.credentials.push({ kind: 'api', mode: 'test', ...TEST_SELLER } as never);
  f.brokerages[1]!.credentials.push({ kind: 'api', mode: 'test', ...OTHER_TEST } as never);
  return f;
}

const DAY = 86_400_000;
const T0 = Date.parse('2031-03-01T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('test clocks', () => {
  let db: TestDatabase;
  const prefix = testPrefix();
  let t: TestService;
  let call: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    db = await createTestDatabase();
    // The sandbox's webhook receiver is on this machine.
    t = await startTestService({ db, prefix, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    await t.seed(fixture());
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
    await dropPrefix(prefix);
    await db?.drop();
  });

  const sql = () => db.database.sql!;
  const newClock = async (at = T0): Promise<number> => {
    const r = await call(TEST_SELLER, 'POST', '/v9/test_clocks', { frozen_time: iso(at), name: 'rehearsal' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.id as number;
  };
  const readyAt = async (clockId: number, at: number): Promise<ApiResponse> => {
    let last: ApiResponse | undefined;
    await until(`clock ${clockId} ready at ${iso(at)}`, async () => {
      last = await call(TEST_SELLER, 'GET', `/v9/test_clocks/${clockId}`);
      return last.body?.status === 'ready' && last.body.frozen_time === iso(at);
    });
    return last!;
  };
  const eventsOf = async (orderId: number) =>
    (await call(TEST_SELLER, 'GET', `/v9/orders/${orderId}/events`)).body.events as Array<{ kind: string; at: string }>;

  it('is made, read, listed and deleted by a test credential; a live one is refused, another sandbox sees none', async () => {
    const created = await call(TEST_SELLER, 'POST', '/v9/test_clocks', { frozen_time: '2031-01-01T00:00:00+02:00', name: 'one' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'test_clock',
      frozen_time: '2030-12-31T22:00:00.000Z',
      status: 'ready',
      name: 'one',
      livemode: false,
      advancing_to: null,
    });
    const id = created.body.id as number;
    expect((await call(TEST_SELLER, 'GET', `/v9/test_clocks/${id}`)).body).toEqual(created.body);
    expect((await call(TEST_SELLER, 'GET', '/v9/test_clocks')).body.test_clocks).toContainEqual(created.body);
    expect((await call(OTHER_TEST, 'GET', `/v9/test_clocks/${id}`)).status).toBe(404);
    expect((await call(OTHER_TEST, 'POST', `/v9/test_clocks/${id}/advance`, { frozen_time: '2031-01-02T00:00:00Z' })).status).toBe(404);
    expect((await call(OTHER_TEST, 'DELETE', `/v9/test_clocks/${id}`)).status).toBe(404);
    expect((await call(OTHER_TEST, 'POST', '/v9/test_helpers/orders', { role: 'buyer', test_clock: id })).status).toBe(404);
    const live = await call(SELLER, 'POST', '/v9/test_clocks', { frozen_time: '2031-01-01T00:00:00Z' });
    expect(live.status).toBe(403);
    expect(live.body.errors[0].message).toMatch(/test credential/);
    expect((await call(SELLER, 'GET', `/v9/test_clocks/${id}`)).status).toBe(403);
    const deleted = await call(TEST_SELLER, 'DELETE', `/v9/test_clocks/${id}`);
    expect(deleted.body).toEqual({ id, object: 'test_clock', deleted: true, deleted_orders: 0 });
    expect((await call(TEST_SELLER, 'GET', `/v9/test_clocks/${id}`)).status).toBe(404);
  });

  it('refuses an advance backwards, of more than 400 days, or while advancing, and a delete while advancing: nothing changes', async () => {
    const id = await newClock();
    const back = await call(TEST_SELLER, 'POST', `/v9/test_clocks/${id}/advance`, { frozen_time: iso(T0 - 1) });
    expect([back.status, back.body.errors[0].field]).toEqual([400, 'frozen_time']);
    expect((await call(TEST_SELLER, 'POST', `/v9/test_clocks/${id}/advance`, { frozen_time: iso(T0) })).status).toBe(400);
    const far = await call(TEST_SELLER, 'POST', `/v9/test_clocks/${id}/advance`, { frozen_time: iso(T0 + 401 * DAY) });
    expect(far.status).toBe(400);
    expect(far.body.errors[0].message).toMatch(/400 days/);
    expect((await call(TEST_SELLER, 'POST', `/v9/test_clocks/${id}/advance`, { frozen_time: 'tomorrow' })).status).toBe(400);
    // An advance under way (held here in Postgres, where the service reads it from).
    await sql()`update test_clocks set status = 'advancing', advance_to = ${iso(T0 + DAY)} where id = ${id}`;
    const again = await call(TEST_SELLER, 'POST', `/v9/test_clocks/${id}/advance`, { frozen_time: iso(T0 + 2 * DAY) });
    expect([again.status, again.body.errors[0].code]).toEqual([409, 'test_clock_advancing']);
    const del = await call(TEST_SELLER, 'DELETE', `/v9/test_clocks/${id}`);
    expect([del.status, del.body.errors[0].code]).toEqual([409, 'test_clock_advancing']);
    const [row] = await sql()`select status, frozen_time, advance_to from test_clocks where id = ${id}`;
    expect([row!.status, new Date(row!.frozen_time).getTime(), new Date(row!.advance_to).getTime()]).toEqual(['advancing', T0, T0 + DAY]);
  });

  it("an order on a clock lives at its time: its deadline's timers fire when the clock passes them, once, stamped then", async () => {
    const clockId = await newClock();
    const deliverBy = T0 + 3 * DAY;
    const created = await call(TEST_SELLER, 'POST', '/v9/test_helpers/orders', {
      role: 'seller',
      deliver_by: iso(deliverBy),
      test_clock: clockId,
    });
    expect(created.status).toBe(201);
    const orderId = created.body.id as number;
    const accepted = await call(TEST_SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    // Its objects carry the clock's time, not the wall's.
    let events = await eventsOf(orderId);
    expect(events.map((e) => [e.kind, e.at])).toEqual([['created', iso(T0)]]);
    const [order] = await sql()`select accepted_at, due_soon_at from orders where id = ${orderId}`;
    expect(new Date(order!.accepted_at).getTime()).toBe(T0);
    const dueSoonAt = new Date(order!.due_soon_at).getTime();

    // Not armed on the wall clock: the deadline is years away from the wall, and the clock drives it.
    const advance = await call(TEST_SELLER, 'POST', `/v9/test_clocks/${clockId}/advance`, { frozen_time: iso(T0 + 5 * DAY) });
    expect(advance.status).toBe(200);
    expect(advance.body).toMatchObject({ status: 'advancing', advancing_to: iso(T0 + 5 * DAY) });
    await readyAt(clockId, T0 + 5 * DAY);
    events = await eventsOf(orderId);
    expect(events.map((e) => [e.kind, e.at])).toEqual([
      ['created', iso(T0)],
      ['due_soon', iso(dueSoonAt)],
      ['overdue', iso(deliverBy)],
    ]);
    // The feed's event objects say their mode and clock.
    let mine: Array<{ order_id: number; livemode: boolean; test_clock: number | null }> = [];
    await until('three events in the feed', async () => {
      const feed = await call(TEST_SELLER, 'GET', '/v9/events');
      mine = (feed.body.events as typeof mine).filter((e) => e.order_id === orderId);
      return mine.length === 3;
    });
    for (const e of mine) expect([e.livemode, e.test_clock]).toEqual([false, clockId]);
    // A second advance fires nothing again.
    expect((await call(TEST_SELLER, 'POST', `/v9/test_clocks/${clockId}/advance`, { frozen_time: iso(T0 + 9 * DAY) })).status).toBe(200);
    await readyAt(clockId, T0 + 9 * DAY);
    expect((await eventsOf(orderId)).length).toBe(3);
    // Deleting the clock deletes its order and everything of it.
    const deleted = await call(TEST_SELLER, 'DELETE', `/v9/test_clocks/${clockId}`);
    expect(deleted.body).toMatchObject({ deleted: true, deleted_orders: 1 });
    expect((await call(TEST_SELLER, 'GET', `/v9/orders/${orderId}`)).status).toBe(404);
    expect((await sql()`select count(*)::int as n from shipment_events where order_id = ${orderId}`)[0]!.n).toBe(0);
    expect((await sql()`select count(*)::int as n from shipments where order_id = ${orderId}`)[0]!.n).toBe(0);
  });

  it('fires the timers of many orders in time order across them, each once', async () => {
    const clockId = await newClock();
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await call(TEST_SELLER, 'POST', '/v9/test_helpers/orders', {
        role: 'seller',
        deliver_by: iso(T0 + (12 - i) * 3_600_000 + 2 * DAY),
        test_clock: clockId,
      });
      ids.push(r.body.id as number);
    }
    await call(TEST_SELLER, 'POST', `/v9/test_clocks/${clockId}/advance`, { frozen_time: iso(T0 + 4 * DAY) });
    await readyAt(clockId, T0 + 4 * DAY);
    const rows = await sql()`select e.order_id, e.kind, e.at, e.id from shipment_events e
      where e.order_id = any(${ids}::bigint[]) and e.kind in ('due_soon', 'overdue') order by e.id`;
    expect(rows.length).toBe(24);
    // Appended in the order they fell due: the feed's order is the clock's.
    const times = rows.map((r) => new Date(r.at).getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const perTimer = new Map<string, number>();
    for (const r of rows) perTimer.set(`${r.order_id}-${r.kind}`, (perTimer.get(`${r.order_id}-${r.kind}`) ?? 0) + 1);
    expect([...perTimer.values()].every((n) => n === 1)).toBe(true);
  });

  it('a buyer-side order on a clock: the simulated seller ships e-tickets, an issue goes unanswered 49 h and escalates once', async () => {
    const clockId = (await call(OTHER_TEST, 'POST', '/v9/test_clocks', { frozen_time: iso(T0) })).body.id as number;
    const created = await call(OTHER_TEST, 'POST', '/v9/test_helpers/orders', { role: 'buyer', test_clock: clockId });
    expect(created.status).toBe(201);
    const orderId = created.body.id as number;
    for (const action of ['accept', 'ship']) {
      const acted = await call(OTHER_TEST, 'POST', `/v9/test_helpers/orders/${orderId}/actions`, { action });
      expect(acted.status, JSON.stringify(acted.body)).toBe(200);
    }
    const opened = await call(OTHER_TEST, 'POST', `/v9/orders/${orderId}/delivery_issues`, { reason: 'not_received' });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    // Opened at the clock's time; the seller's window runs on it.
    expect(opened.body.opened_at).toBe(iso(T0));
    const respondBy = Date.parse(opened.body.respond_by);
    expect(respondBy).toBeGreaterThan(T0);
    const advanced = await call(OTHER_TEST, 'POST', `/v9/test_clocks/${clockId}/advance`, { frozen_time: iso(T0 + 49 * 3_600_000) });
    expect(advanced.status).toBe(200);
    await until('the clock ready', async () => (await call(OTHER_TEST, 'GET', `/v9/test_clocks/${clockId}`)).body.status === 'ready');
    const escalated = await sql()`select at from shipment_events where order_id = ${orderId} and kind = 'delivery_issue_escalated'`;
    expect(escalated.map((e) => new Date(e.at).getTime())).toEqual([respondBy]);
    const [issue] = await sql()`select state, escalated_by, escalated_at from delivery_issues where order_id = ${orderId}`;
    expect([issue!.state, issue!.escalated_by, new Date(issue!.escalated_at).getTime()]).toEqual(['escalated', 'system', respondBy]);
  });

  it('fulfil clocks create, advance, show and delete: the same from the terminal', async () => {
    const creds = ['--token', TEST_SELLER.token, '--secret', TEST_SELLER.secret, '--base', t.url];
    const body = (r: { stdout: string }) => JSON.parse(r.stdout.slice(r.stdout.indexOf('\n') + 1));
    const made = await runCli(['clocks', 'create', '--time', iso(T0), '--name', 'terminal', ...creds]);
    expect(made.code, made.text).toBe(0);
    expect(made.lines[0]).toBe('201 Created');
    const clock = body(made);
    expect(clock).toMatchObject({ object: 'test_clock', name: 'terminal', status: 'ready' });
    const advanced = await runCli(['clocks', 'advance', String(clock.id), '--to', iso(T0 + DAY), ...creds]);
    expect(advanced.code, advanced.text).toBe(0);
    await readyAt(clock.id as number, T0 + DAY);
    const shown = await runCli(['clocks', 'show', String(clock.id), ...creds]);
    expect(body(shown)).toMatchObject({ id: clock.id, frozen_time: iso(T0 + DAY), status: 'ready' });
    const backwards = await runCli(['clocks', 'advance', String(clock.id), '--to', iso(T0), ...creds]);
    expect(backwards.code).toBe(1);
    expect(backwards.lines[0]).toBe('400 Bad Request');
    const deleted = await runCli(['clocks', 'delete', String(clock.id), ...creds]);
    expect(body(deleted)).toMatchObject({ id: clock.id, deleted: true });
    const usage = await runCli(['clocks', 'advance', String(clock.id), ...creds]);
    expect(usage.code).toBe(2);
  });

  it("an advance sends test_clock.advancing, the orders' events in time order, then test_clock.ready, signed, to the sandbox's endpoint", async () => {
    const receiver = await startReceiver();
    const hook = await call(TEST_SELLER, 'POST', '/v9/webhook_endpoints', { url: receiver.url });
    expect(hook.status).toBe(201);
    try {
      const clockId = await newClock();
      const made = await call(TEST_SELLER, 'POST', '/v9/test_helpers/orders', {
        role: 'seller',
        deliver_by: iso(T0 + DAY),
        test_clock: clockId,
      });
      const orderId = made.body.id as number;
      await call(TEST_SELLER, 'POST', `/v9/test_clocks/${clockId}/advance`, { frozen_time: iso(T0 + 2 * DAY) });
      await readyAt(clockId, T0 + 2 * DAY);
      const mine = () =>
        receiver.acknowledged
          .filter((r) => r.body.test_clock === clockId)
          .map((r) => r.body as { type: string; livemode: boolean; data: any });
      await until('the clock ready by webhook', () => mine().some((b) => b.type === 'test_clock.ready'), 15_000);
      await until(
        "the order's overdue by webhook",
        () => mine().some((b) => b.type === 'order.overdue' || b.type === 'shipment.overdue'),
        15_000,
      );
      const types = mine().map((b) => b.type);
      expect(types[0]).toBe('test_clock.advancing');
      expect(types.filter((x) => x.startsWith('test_clock.'))).toEqual(['test_clock.advancing', 'test_clock.ready']);
      const ready = mine().find((b) => b.type === 'test_clock.ready')!;
      expect(ready.livemode).toBe(false);
      expect(ready.data.test_clock).toMatchObject({ id: clockId, status: 'ready', frozen_time: iso(T0 + 2 * DAY) });
      const advancing = mine().find((b) => b.type === 'test_clock.advancing')!;
      expect(advancing.data.test_clock).toMatchObject({
        id: clockId,
        status: 'advancing',
        frozen_time: iso(T0),
        advancing_to: iso(T0 + 2 * DAY),
      });
      for (const r of receiver.acknowledged.filter((x) => x.body.test_clock === clockId))
        expect(signedWith(hook.body.secret, r)).toBe(true);
      expect(
        mine()
          .filter((b) => b.data?.event)
          .every((b) => b.livemode === false),
      ).toBe(true);
      expect(orderId).toBeGreaterThan(0);
    } finally {
      await call(TEST_SELLER, 'DELETE', `/v9/webhook_endpoints/${hook.body.id}`);
      await receiver.close();
    }
  });

  it('a one-time download link of an order on a clock expires on the clock: made at its time, gone once it passes', async () => {
    const clockId = await newClock();
    const created = await call(TEST_SELLER, 'POST', '/v9/test_helpers/orders', { role: 'seller', test_clock: clockId, quantity: 1 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const orderId = created.body.id as number;
    const accepted = await call(TEST_SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    const updated = await call(TEST_SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'Eticket' });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const shipment = updated.body.id as number;
    const up = await call(TEST_SELLER, 'POST', `/v9/shipments/${shipment}/etickets`, {
      etickets: [{ eticket: b64(await makePdf(1, 'clocked')) }],
    });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const made = async () => {
      const link = await call(TEST_SELLER, 'POST', `/v9/shipments/${shipment}/etickets/link`, { expires_in_minutes: 60 });
      expect(link.status, JSON.stringify(link.body)).toBe(201);
      return link.body as { url: string; expires_at: string; livemode: boolean };
    };
    const early = await made();
    const kept = await made();
    // Made at the clock's time (years after the wall's), an hour of the clock to run.
    expect([early.expires_at, early.livemode]).toEqual([iso(T0 + 3_600_000), false]);
    const path = (l: { url: string }) => new URL(l.url).pathname;
    const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' } };
    expect((await fetch(new URL(path(early), t.url))).status).toBe(200);
    const used = await fetch(new URL(path(kept), t.url), form);
    expect(used.status).toBe(200);
    await used.arrayBuffer();
    const [use] = await sql()`select l.used_at from file_links l where l.used_at is not null and l.file_id = ${up.body.etickets[0].id}`;
    expect(new Date(use!.used_at).toISOString()).toBe(iso(T0));

    expect((await call(TEST_SELLER, 'POST', `/v9/test_clocks/${clockId}/advance`, { frozen_time: iso(T0 + 2 * 3_600_000) })).status).toBe(
      200,
    );
    await readyAt(clockId, T0 + 2 * 3_600_000);
    // Past its expiry on the clock (still hours ahead on the wall): answered as an expired link is.
    const page = await fetch(new URL(path(early), t.url));
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('This link does not work');
    const taken = await fetch(new URL(path(early), t.url), { method: 'POST' });
    expect(taken.status).toBe(404);
    expect(((await taken.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('not_found');
    // A link made now runs from the clock's new time.
    expect((await made()).expires_at).toBe(iso(T0 + 3 * 3_600_000));
  });
});
