import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { runBuiltCli } from '../support/cli.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { until } from '../support/webhook-receiver.ts';

const ALL = Object.values(ORDERS);

/** The operators' order search: the /ops/orders page and `fulfil orders list|show` (the built bin). */
describe('order search', () => {
  let t: TestService;
  let sql: postgres.Sql;

  const cli = (...args: string[]) =>
    runBuiltCli(
      { PATH: process.env.PATH, DATABASE_URL: t.db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: t.prefix, LOG_LEVEL: 'silent' },
      args,
    );
  const page = async (query: string) => {
    const res = await fetch(`${t.url}/ops/orders?${query}`);
    return { status: res.status, text: await res.text() };
  };
  const ids = (html: string) => [...html.matchAll(/<tr data-order="(\d+)">/g)].map((m) => Number(m[1]));

  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture());
    sql = postgres(t.db.url, { max: 1, onnotice: () => {} });
    // Distinct creation times, oldest first in id order, so "newest first" is checkable.
    for (const [i, id] of ALL.entries())
      await sql`update orders set created_at = now() - ${`${100 - i} minutes`}::interval, updated_at = now() - ${`${100 - i} minutes`}::interval where id = ${id}`;
    const call = apiClient(t.url);
    expect((await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 })).status).toBe(200);
    expect((await call(SELLER, 'POST', `/v9/orders/${ORDERS.localPickup}/accept`, { reviewer_id: 100 })).status).toBe(200);
    // A command that gave up, and one still waiting for a worker (as after an outage).
    const command = (id: string, status: string, orderId: number) =>
      sql`insert into commands (id, name, brokerage_id, request_hash, payload, status, attempts)
          values (${id}, 'order.accept', 1, 'x', ${sql.json({ order_id: orderId })}, ${status}, 3)`;
    await command('search-failed-1', 'failed', ORDERS.flash);
    await command('search-queued-1', 'queued', ORDERS.tbd2);
    // The relay fans each event out to the endpoints that exist when it relays it: let it finish
    // with the two accepts first, so the only deliveries are the two written below.
    await until('outbox relayed', async () => (await sql`select count(*)::int as n from event_feed where position is null`)[0]!.n === 0);
    // A receiver that has not acknowledged the accept of one order; another's it has.
    const [endpoint] = await sql<[{ id: string }]>`insert into webhook_endpoints (brokerage_id, url, event_kinds, secret_ciphertext)
      values (1, 'https://hooks.example.test/in', '{created}', 'x') returning id`;
    const delivery = (orderId: number, delivered: boolean) =>
      sql`insert into webhook_deliveries (endpoint_id, order_id, seq, event_id, kind, event_at, delivered_at)
          values (${endpoint!.id}, ${orderId}, 1, ${`ev-${orderId}`}, 'created', now(), ${delivered ? new Date() : null})`;
    await delivery(ORDERS.localPickup, false);
    await delivery(ORDERS.tbd, true);
  });
  afterAll(async () => {
    await sql?.end();
    await t?.stop();
  });

  it('lists every order newest first and filters by state, shipment type, parties, times and commands', async () => {
    expect(ids((await page('')).text)).toEqual([...ALL].reverse());
    expect(ids((await page('state=accepted')).text)).toEqual([ORDERS.localPickup, ORDERS.tbd]);
    expect(ids((await page('shipment_type=LocalPickup')).text)).toEqual([ORDERS.localPickup]);
    expect(ids((await page('shipment_type=TBD&state=accepted')).text)).toEqual([ORDERS.tbd]);
    expect(ids((await page('seller_brokerage=1')).text)).toHaveLength(ALL.length);
    expect(ids((await page('seller_brokerage=2')).text)).toEqual([]);
    expect(ids((await page('seller_office=11')).text)).toEqual([]);
    expect(ids((await page('buyer_brokerage=2&seller_office=10')).text)).toHaveLength(ALL.length);
    expect(ids((await page('command=failed')).text)).toEqual([ORDERS.flash]);
    expect(ids((await page('command=unfinished')).text)).toEqual([ORDERS.tbd2]);
    expect(ids((await page('webhook=undelivered')).text)).toEqual([ORDERS.localPickup]);
    const [{ cut }] = await sql<[{ cut: Date }]>`select created_at as cut from orders where id = ${ORDERS.flash}`;
    expect(ids((await page(`created_before=${encodeURIComponent(cut.toISOString())}`)).text)).toEqual([ORDERS.tbd2, ORDERS.tbd]);
    expect(ids((await page('created_after=2999-01-01')).text)).toEqual([]);
  });

  it('keeps updated_at for every change of the order (a trigger), and filters on it', async () => {
    const rows = await sql<
      Array<{ id: number; changed: boolean }>
    >`select id::int, updated_at > created_at + interval '1 minute' as changed from orders order by id`;
    expect(rows.filter((r) => r.changed).map((r) => r.id)).toEqual([ORDERS.tbd, ORDERS.localPickup]);
    const since = new Date(Date.now() - 60_000).toISOString();
    expect(ids((await page(`updated_after=${encodeURIComponent(since)}`)).text)).toEqual([ORDERS.localPickup, ORDERS.tbd]);
  });

  it('pages by keyset without losing or repeating an order, and each row opens the order view', async () => {
    const seen: number[] = [];
    let query = 'limit=2';
    for (let i = 0; i < 10; i++) {
      const { text } = await page(query);
      seen.push(...ids(text));
      const next = /id="older" href="\/ops\/orders\?([^"]+)"/.exec(text);
      if (!next) break;
      query = next[1]!.replace(/&amp;/g, '&');
    }
    expect(seen).toEqual([...ALL].reverse());
    const { text } = await page('state=accepted');
    expect(text).toContain(`<a href="/ops/orders/${ORDERS.tbd}">`);
    // Parties by name (the fixture's Acme Tickets sells from Acme NYC to Bolt Buyers), times as ISO 8601 to the second.
    expect(text).toContain('Acme NYC');
    expect(text).toContain('Bolt Buyers');
    expect(text).toMatch(/<td>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z<\/td>/);
    const view = await fetch(`${t.url}/ops/orders/${ORDERS.tbd}`);
    expect(view.status).toBe(200);
    const viewText = await view.text();
    expect(viewText).toContain(`Order ${ORDERS.tbd}`);
    expect(viewText).toContain('Acme NYC (office 10) of Acme Tickets (brokerage 1)');
    expect(viewText).toContain('Bolt Buyers (brokerage 2)');
    expect(viewText).toContain('<table id="sent"');
  });

  it('refuses a bad filter, and an unknown one rather than ignoring it, on the page itself: a message above the form', async () => {
    for (const [q, said] of [
      ['state=nope', 'state: one of'],
      ['seller_office=x', 'seller_office: expected a positive integer id'],
      ['created_after=yesterday', 'created_after: expected a date'],
      ['limit=0', 'limit'],
      ['after=garbage', 'after'],
      ['colour=red', 'colour: unknown filter'],
      ['state=accepted&state=pending', 'state: given more than once'],
      ['id=abc', 'order id: expected an order id'],
    ] as const) {
      const res = await page(q);
      expect(res.status, q).toBe(400);
      expect(res.text, q).toMatch(/^<!doctype html>/);
      expect(res.text, q).toContain('<p class="problem" id="problem" role="alert">');
      expect(res.text, q).toContain(said);
      expect(res.text, q).toContain('<form class="filters"');
    }
    const unknown = await fetch(`${t.url}/ops/orders/999999`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('there is no order 999999');
  });

  it('fulfil orders list: the same filters as flags, as a table or JSON, paged', async () => {
    const json = await cli('orders', 'list', '--state', 'accepted', '--json');
    expect(json.err).toBe('');
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.out) as { orders: Array<{ id: number; shipment: { type: string } | null }>; next?: string };
    expect(parsed.orders.map((o) => o.id)).toEqual([ORDERS.localPickup, ORDERS.tbd]);
    // The API's spelling: snake_case keys, as every answer has them.
    expect(Object.keys(parsed.orders[0]!)).toEqual(
      expect.arrayContaining(['seller_office_id', 'buyer_brokerage_id', 'deliver_by', 'created_at']),
    );
    expect(json.out).not.toMatch(/"[a-z]+[A-Z]\w*":/);
    expect(parsed.orders[0]!.shipment?.type).toBe('LocalPickup');
    expect(parsed.next).toBeUndefined();

    const table = await cli('orders', 'list', '--command', 'failed');
    expect(table.code).toBe(0);
    const lines = table.out.trim().split('\n');
    expect(lines[0]).toMatch(/^ORDER\s+STATE/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(new RegExp(`^${ORDERS.flash}\\s+pending`));

    const first = JSON.parse((await cli('orders', 'list', '--limit', '3', '--json')).out) as {
      orders: Array<{ id: number }>;
      next: string;
    };
    const second = JSON.parse((await cli('orders', 'list', '--limit', '3', '--after', first.next, '--json')).out) as {
      orders: Array<{ id: number }>;
    };
    expect([...first.orders, ...second.orders].map((o) => o.id)).toEqual([...ALL].reverse());

    const bad = await cli('orders', 'list', '--shipment-type', 'Pigeon');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--shipment-type: one of');
    expect((await cli('orders', 'list', '--colour', 'red')).code).toBe(2);
  });

  it('fulfil orders show: facts, chain, timeline, commands and webhook deliveries of one order', async () => {
    const shown = await cli('orders', 'show', String(ORDERS.tbd));
    expect(shown.err).toBe('');
    expect(shown.code).toBe(0);
    expect(shown.out).toContain(`order ${ORDERS.tbd} (1001-${ORDERS.tbd}): accepted`);
    expect(shown.out).toMatch(/shipment chain:\n {2}#\d+ TBD\/pending .* live/);
    expect(shown.out).toMatch(/timeline \(1\):\n {2}1 .*created/);
    expect(shown.out).toMatch(/commands \(1\):\n {2}\S+\s+order\.accept\s+succeeded 200/);
    expect(shown.out).toMatch(
      /webhook deliveries \(1\):\n {2}1\s+created\s+delivered \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(attempts 0\)\s+endpoint \d+ https:\/\/hooks\.example\.test\/in/,
    );
    const json = JSON.parse((await cli('orders', 'show', String(ORDERS.flash), '--json')).out) as {
      commands: Array<{ id: string; status: string }>;
    };
    expect(json.commands).toEqual([expect.objectContaining({ id: 'search-failed-1', status: 'failed' })]);
    // An owed delivery: its attempts, when it is tried next and how the last attempt went.
    await sql`update webhook_deliveries set attempts = 2 where order_id = ${ORDERS.localPickup}`;
    await sql`insert into webhook_attempts (endpoint_id, delivery_id, order_id, attempt, outcome, status_code, error)
      select endpoint_id, id, order_id, 2, 'http_error', 503, 'Service Unavailable' from webhook_deliveries where order_id = ${ORDERS.localPickup}`;
    const owed = await cli('orders', 'show', String(ORDERS.localPickup));
    expect(owed.out).toMatch(
      /webhook deliveries \(1\):\n {2}1\s+created\s+owed: attempts 2, next attempt \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; last http_error 503: Service Unavailable\s+endpoint \d+ https:\/\/hooks/,
    );
    const owedJson = JSON.parse((await cli('orders', 'show', String(ORDERS.localPickup), '--json')).out) as { webhooks: unknown[] };
    expect(owedJson.webhooks).toEqual([
      expect.objectContaining({
        url: 'https://hooks.example.test/in',
        seq: 1,
        kind: 'created',
        delivered_at: null,
        attempts: 2,
        next_attempt_at: expect.any(String),
        last_outcome: 'http_error',
        last_status: 503,
        last_error: 'Service Unavailable',
      }),
    ]);
    const none = await cli('orders', 'show', String(ORDERS.flash));
    expect(none.out).toContain('webhook deliveries (0):\n  no endpoint was owed an event of this order');
    const missing = await cli('orders', 'show', '999999');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('no order 999999');
  });
});
