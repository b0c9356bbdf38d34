import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, BUYER_PICKUP_BODY, linkDeliveryFlow, SELLER_PICKUP_BODY } from '../support/api.ts';
import { baseFixture, BUYER, ORDERS, SELLER, SELLER_USER, STRANGER } from '../support/fixtures.ts';
import { runCli } from '../support/cli.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { signedWith, startReceiver, until, type Received } from '../support/webhook-receiver.ts';

const TBD_ORDERS = Array.from({ length: 12 }, (_, i) => 900 + i);

/** Receipts per order, in the order acknowledged: each must be seq 1, 2, 3… with no repeat. */
function expectInOrderOnce(received: readonly Received[], orders: readonly number[], perOrder: number) {
  for (const order of orders) {
    const seqs = received.filter((r) => r.body.order_id === order).map((r) => r.body.seq);
    expect(seqs, `order ${order}`).toEqual(Array.from({ length: perOrder }, (_, i) => i + 1));
  }
}

describe('webhooks', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService({
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        RELAY_INTERVAL_MS: '50',
        WEBHOOK_BACKOFF_BASE_MS: '20',
        WEBHOOK_BACKOFF_MAX_MS: '200',
        WEBHOOK_CONNECT_TIMEOUT_MS: '1000',
        WEBHOOK_RESPONSE_TIMEOUT_MS: '400',
        WEBHOOK_SWEEP_EVERY_MS: '500',
      },
    });
    const fixture = baseFixture(TBD_ORDERS);
    await t.seed(fixture);
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const count = async (table: string) => (await t.db.database.sql!.unsafe(`select count(*)::int as n from ${table}`))[0]!.n as number;

  const runTbdOrder = (orderId: number) => linkDeliveryFlow(call, orderId);

  async function endpointFor(cred: typeof SELLER, url: string, extra: object = {}) {
    const res = await call(cred, 'POST', '/v9/webhook_endpoints', { url, ...extra });
    expect(res.status).toBe(201);
    return res.body as { id: number; secret: string };
  }

  it('manages endpoints: create returns the secret once, list/read/update/rotate/delete; bad input changes nothing', async () => {
    const before = await count('webhook_endpoints');
    for (const [body, field] of [
      [{ url: 'not a url' }, 'url'],
      [{ url: 'ftp://127.0.0.1/x' }, 'url'],
      [{ url: 'http://127.0.0.1/x', event_kinds: ['shipped'] }, 'event_kinds.0'],
      [{ url: 'http://127.0.0.1/x', event_kinds: [] }, 'event_kinds'],
      [{ url: 'http://127.0.0.1/x', colour: 'red' }, 'colour'],
      [{}, 'url'],
    ] as const) {
      const res = await call(SELLER, 'POST', '/v9/webhook_endpoints', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ code: 'invalid_params', field });
    }
    expect(await count('webhook_endpoints')).toBe(before);

    const created = await endpointFor(SELLER, 'http://127.0.0.1:9/a', { event_kinds: ['created', 'completed'] });
    expect(created.secret).toMatch(/^whsec_/);
    const stored = (await t.db.database.sql!`select secret_ciphertext from webhook_endpoints where id = ${created.id}`)[0]!;
    expect(stored.secret_ciphertext).not.toContain(created.secret);

    const read = await call(SELLER_USER, 'GET', `/v9/webhook_endpoints/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: created.id, url: 'http://127.0.0.1:9/a', event_kinds: ['created', 'completed'], enabled: true });
    expect(read.body.secret).toBeUndefined();
    const list = await call(SELLER, 'GET', '/v9/webhook_endpoints');
    expect(list.body.webhook_endpoints.map((e: { id: number }) => e.id)).toContain(created.id);

    // Another brokerage's endpoint does not exist for the caller, whatever it tries.
    for (const [method, path, body] of [
      ['GET', `/v9/webhook_endpoints/${created.id}`],
      ['PATCH', `/v9/webhook_endpoints/${created.id}`, { enabled: false }],
      ['DELETE', `/v9/webhook_endpoints/${created.id}`],
      ['POST', `/v9/webhook_endpoints/${created.id}/rotate_secret`, {}],
      ['POST', `/v9/webhook_endpoints/${created.id}/ping`, {}],
      ['GET', `/v9/webhook_endpoints/${created.id}/deliveries`],
    ] as const) {
      const res = await call(STRANGER, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.errors[0].code).toBe('not_found');
    }
    expect((await call(STRANGER, 'GET', '/v9/webhook_endpoints')).body.webhook_endpoints).toEqual([]);

    const patched = await call(SELLER, 'PATCH', `/v9/webhook_endpoints/${created.id}`, { event_kinds: ['delivered'], enabled: false });
    expect(patched.body).toMatchObject({ event_kinds: ['delivered'], enabled: false, disabled_reason: 'manual' });
    const badPatch = await call(SELLER, 'PATCH', `/v9/webhook_endpoints/${created.id}`, { url: 'nope' });
    expect(badPatch.status).toBe(400);
    expect((await call(SELLER, 'GET', `/v9/webhook_endpoints/${created.id}`)).body.url).toBe('http://127.0.0.1:9/a');

    const rotated = await call(SELLER, 'POST', `/v9/webhook_endpoints/${created.id}/rotate_secret`, { grace_seconds: 60 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
    expect(Date.parse(rotated.body.previous_secret_expires_at)).toBeGreaterThan(Date.now());

    expect((await call(SELLER, 'DELETE', `/v9/webhook_endpoints/${created.id}`)).status).toBe(204);
    expect((await call(SELLER, 'GET', `/v9/webhook_endpoints/${created.id}`)).status).toBe(404);
  });

  it('both parties of a LocalPickup order each receive the other party’s step, trimmed and signed', async () => {
    const seller = await startReceiver();
    const buyer = await startReceiver();
    try {
      const se = await endpointFor(SELLER, seller.url);
      const be = await endpointFor(BUYER, buyer.url);
      const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.localPickup}/accept`, { reviewer_id: 100 });
      await until('the buyer hears of the acceptance', () => buyer.acknowledged.length === 1);
      const b = await call(BUYER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, BUYER_PICKUP_BODY);
      await until('the seller hears of the buyer’s details', () =>
        seller.acknowledged.some((r) => r.body.type === 'shipment.pickup_details'),
      );
      await call(SELLER, 'PUT', `/v9/shipments/${b.body.id}`, SELLER_PICKUP_BODY);
      await until('both hear of the delivery', () => seller.acknowledged.length === 3 && buyer.acknowledged.length === 3);

      for (const [rx, ep, own] of [
        [seller, se, 1],
        [buyer, be, 2],
      ] as const) {
        expect(rx.acknowledged.map((r) => r.body.type)).toEqual(['shipment.created', 'shipment.pickup_details', 'shipment.delivered']);
        for (const r of rx.acknowledged) {
          expect(signedWith(ep.secret, r)).toBe(true);
          expect(r.eventId).toBe(r.body.id);
          expect(r.body).toMatchObject({ order_id: ORDERS.localPickup, data: { event: { event_id: r.body.id, seq: r.body.seq } } });
          // Who acted inside the other party is not shown.
          const mine = r.body.data.event.actor.brokerage_id === own;
          if (!mine) expect(r.body.data.event).toMatchObject({ command_id: null, actor: { user_id: null } });
          else expect(r.body.data.event.command_id).toMatch(/^c-/);
        }
      }
      const pickup = seller.acknowledged[1]!.body.data.event;
      expect(pickup.actor).toMatchObject({ role: 'buyer', brokerage_id: 2 });
      // The object each party received is the one its feed lists (the claim reads the shipment
      // version itself; the feed through the read path), and its last shipment is what GET shows.
      for (const [rx, cred] of [
        [seller, SELLER],
        [buyer, BUYER],
      ] as const) {
        const feed = await call(cred, 'GET', '/v9/events?limit=1000');
        const listed = (feed.body.events as Array<{ order_id: number }>).filter((e) => e.order_id === ORDERS.localPickup);
        expect(rx.acknowledged.map((r) => r.body)).toEqual(listed);
        const last = rx.acknowledged[2]!.body.data.shipment;
        // The read adds the shipment's mode, which the event carries beside its data.
        const { livemode, ...read } = (await call(cred, 'GET', `/v9/shipments/${last.id}`)).body;
        expect(livemode).toBe(true);
        expect(last).toEqual(read);
        expect(last).toMatchObject({ state: 'delivered', phone_number: expect.any(Object) });
      }
      // The order shows as having nothing owed any more.
      // (A receiver counts a delivery when it answers; fulfil records it a moment later.)
      await until('nothing owed for the order', async () => {
        const pending = await t.db.database
          .sql!`select exists(select 1 from webhook_deliveries where order_id = ${ORDERS.localPickup} and delivered_at is null) as pending`;
        return pending[0]!.pending === false;
      });
      // Operators see each delivery per endpoint on the order view, and the queue on the board.
      const page = await (await fetch(`${t.url}/ops/orders/${ORDERS.localPickup}`)).text();
      expect(page).toContain('<table id="webhooks">');
      for (const url of [seller.url, buyer.url]) expect(page).toContain(url);
      expect(page.match(/<tr class="ok">/g)?.length).toBeGreaterThanOrEqual(6);
      expect(await (await fetch(`${t.url}/ops/queues/api/queues`)).text()).toContain('fulfil-webhooks');
      await call(SELLER, 'DELETE', `/v9/webhook_endpoints/${se.id}`);
      await call(BUYER, 'DELETE', `/v9/webhook_endpoints/${be.id}`);
    } finally {
      await seller.close();
      await buyer.close();
    }
  });

  it('a receiver down for a while, then failing in every way, gets everything: in order per order, each once', async () => {
    const orders = TBD_ORDERS.slice(0, 6);
    // Down (503) for the first 30 requests, then hanging, cut off, slow and 500 answers in turn.
    const rx = await startReceiver((_r, n) => {
      if (n <= 30) return 503;
      const k = n % 6;
      if (k === 0) return 'hang';
      if (k === 1) return 'close-mid-answer';
      if (k === 2) return 500;
      if (k === 3) return { status: 200, delayMs: 150 };
      return 204;
    });
    try {
      const ep = await endpointFor(SELLER, rx.url);
      await Promise.all(orders.map(runTbdOrder));
      await until('every event acknowledged', () => rx.acknowledged.length >= orders.length * 3, 60_000);
      expectInOrderOnce(rx.acknowledged, orders, 3);
      expect(new Set(rx.acknowledged.map((r) => r.eventId)).size).toBe(rx.acknowledged.length);
      // Every failure is in the log; the endpoint is still enabled (the window is 72 h).
      const log = await call(SELLER, 'GET', `/v9/webhook_endpoints/${ep.id}/deliveries?limit=500`);
      const outcomes = new Set(log.body.attempts.map((a: { outcome: string }) => a.outcome));
      for (const o of ['success', 'http_error', 'timeout', 'network']) expect(outcomes).toContain(o);
      expect(log.body.attempts.find((a: { outcome: string }) => a.outcome === 'http_error')).toMatchObject({
        status_code: expect.any(Number),
        latency_ms: expect.any(Number),
        attempt: expect.any(Number),
      });
      expect((await call(SELLER, 'GET', `/v9/webhook_endpoints/${ep.id}`)).body.enabled).toBe(true);
      await call(SELLER, 'DELETE', `/v9/webhook_endpoints/${ep.id}`);
    } finally {
      await rx.close();
    }
  }, 90_000);

  it('410 disables the endpoint; events keep being owed; re-enabling resumes from the first undelivered, in order', async () => {
    const orders = TBD_ORDERS.slice(6, 9);
    const rx = await startReceiver(() => 410);
    try {
      const ep = await endpointFor(SELLER, rx.url);
      await runTbdOrder(orders[0]!);
      await until('disabled', async () => (await call(SELLER, 'GET', `/v9/webhook_endpoints/${ep.id}`)).body.enabled === false);
      const disabled = await call(SELLER, 'GET', `/v9/webhook_endpoints/${ep.id}`);
      expect(disabled.body).toMatchObject({ disabled_reason: 'gone' });
      const log = await call(SELLER, 'GET', `/v9/webhook_endpoints/${ep.id}/deliveries`);
      expect(log.body.attempts[0]).toMatchObject({ outcome: 'disabled', error: expect.stringContaining('410') });
      for (const o of orders.slice(1)) await runTbdOrder(o);
      const received = rx.all.length;

      rx.behave(() => 200);
      const enabled = await call(SELLER, 'PATCH', `/v9/webhook_endpoints/${ep.id}`, { enabled: true });
      expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null });
      await until('all delivered after re-enabling', () => rx.acknowledged.length === orders.length * 3);
      expect(received).toBe(1); // nothing was sent while disabled
      expectInOrderOnce(rx.acknowledged, orders, 3);
      await call(SELLER, 'DELETE', `/v9/webhook_endpoints/${ep.id}`);
    } finally {
      await rx.close();
    }
  });

  it('redeliver one event, replay an order or everything since a time, ping; a redirect is not followed', async () => {
    const orders = TBD_ORDERS.slice(9, 11);
    const rx = await startReceiver();
    const elsewhere = await startReceiver();
    try {
      const ep = await endpointFor(SELLER, rx.url);
      const since = new Date().toISOString();
      for (const o of orders) await runTbdOrder(o);
      await until('delivered', () => rx.acknowledged.length === 6);
      const first = rx.acknowledged[0]!;

      let res = await call(SELLER, 'POST', `/v9/webhook_endpoints/${ep.id}/redeliver`, { event_id: first.eventId });
      expect(res).toMatchObject({ status: 202, body: { queued: 1 } });
      await until('redelivered', () => rx.acknowledged.length === 7);
      expect(rx.acknowledged[6]!.raw).toBe(first.raw); // the same event, the same id

      res = await call(SELLER, 'POST', `/v9/webhook_endpoints/${ep.id}/redeliver`, { order_id: orders[1] });
      expect(res.body.queued).toBe(3);
      await until('order replayed', () => rx.acknowledged.length === 10);
      expect(rx.acknowledged.slice(7).map((r) => [r.body.order_id, r.body.seq])).toEqual([
        [orders[1], 1],
        [orders[1], 2],
        [orders[1], 3],
      ]);
      res = await call(SELLER, 'POST', `/v9/webhook_endpoints/${ep.id}/redeliver`, { since });
      expect(res.body.queued).toBe(6);
      await until('all replayed', () => rx.acknowledged.length === 16);
      expectInOrderOnce(rx.acknowledged.slice(10), orders, 3);

      for (const bad of [{}, { event_id: 'x', order_id: 1 }, { since: 'yesterday' }]) {
        expect((await call(SELLER, 'POST', `/v9/webhook_endpoints/${ep.id}/redeliver`, bad)).status).toBe(400);
      }
      expect((await call(SELLER, 'POST', `/v9/webhook_endpoints/${ep.id}/redeliver`, { event_id: 'nope' })).status).toBe(404);

      res = await call(SELLER, 'POST', `/v9/webhook_endpoints/${ep.id}/ping`, {});
      expect(res.status).toBe(202);
      await until('pinged', () => rx.acknowledged.some((r) => r.body.type === 'ping'));
      const pinged = rx.acknowledged.find((r) => r.body.type === 'ping')!;
      expect(pinged.body).toEqual({ id: res.body.event_id, type: 'ping', created_at: expect.any(String), data: { endpoint_id: ep.id } });
      expect(signedWith(ep.secret, pinged)).toBe(true);

      // Rotation: both secrets sign during the grace period.
      const rotated = await call(SELLER, 'POST', `/v9/webhook_endpoints/${ep.id}/rotate_secret`, {});
      await call(SELLER, 'POST', `/v9/webhook_endpoints/${ep.id}/ping`, {});
      await until('pinged again', () => rx.acknowledged.filter((r) => r.body.type === 'ping').length === 2);
      const second = rx.acknowledged.filter((r) => r.body.type === 'ping')[1]!;
      expect(signedWith(ep.secret, second) && signedWith(rotated.body.secret, second)).toBe(true);

      // A redirect is an HTTP error, not followed.
      rx.behave(() => ({ status: 302, location: elsewhere.url }));
      await call(SELLER, 'POST', `/v9/webhook_endpoints/${ep.id}/ping`, {});
      await until('the redirect logged', async () => {
        const log = await call(SELLER, 'GET', `/v9/webhook_endpoints/${ep.id}/deliveries`);
        return log.body.attempts.some((a: { status_code: number }) => a.status_code === 302);
      });
      expect(elsewhere.all).toHaveLength(0);
      await call(SELLER, 'DELETE', `/v9/webhook_endpoints/${ep.id}`);
    } finally {
      await rx.close();
      await elsewhere.close();
    }
  });

  it('the `fulfil webhooks` commands manage endpoints with a credential, ping and read the log', async () => {
    const rx = await startReceiver();
    const env = { FULFIL_TOKEN: BUYER.token, FULFIL_SECRET: BUYER.secret };
    const cli = (...args: string[]) => runCli(['webhooks', ...args, '--base', t.url], env);
    try {
      const created = await cli('create', rx.url, '--kinds', 'created,delivered');
      expect(created.code).toBe(0);
      const body = JSON.parse(created.lines.slice(1).join('\n'));
      expect(body).toMatchObject({ url: rx.url, event_kinds: ['created', 'delivered'], secret: expect.stringMatching(/^whsec_/) });
      expect((await cli('list')).text).toContain(rx.url);
      expect((await cli('ping', String(body.id))).code).toBe(0);
      await until('pinged', () => rx.acknowledged.length === 1);
      await until('logged', async () => (await cli('deliveries', String(body.id))).text.includes('"outcome": "success"'));
      expect((await cli('update', String(body.id), '--disable')).text).toContain('"disabled_reason": "manual"');
      // --enabled true|false, named as the API field is; --enable/--disable stay as its aliases.
      expect((await cli('update', String(body.id), '--enabled', 'true')).text).toContain('"enabled": true');
      expect((await cli('update', String(body.id), '--enabled', 'false')).text).toContain('"disabled_reason": "manual"');
      expect((await cli('update', String(body.id), '--enable')).text).toContain('"enabled": true');
      const unclear = await cli('update', String(body.id), '--enabled', 'yes');
      expect(unclear).toMatchObject({ code: 2, text: expect.stringContaining('--enabled: expected true or false, got yes') });
      expect((await cli('update', String(body.id), '--enabled', 'true', '--disable')).code).toBe(2);
      const refused = await cli('update', String(body.id), '--kinds', 'shipped');
      expect(refused.code).toBe(1);
      expect(refused.text).toContain('invalid_params');
      expect((await cli('replay', String(body.id))).code).not.toBe(0);
      expect(
        (await runCli(['webhooks', 'show', String(body.id), '--base', t.url], { FULFIL_TOKEN: SELLER.token, FULFIL_SECRET: SELLER.secret }))
          .text,
      ).toContain('not_found');
      expect((await cli('delete', String(body.id))).code).toBe(0);
    } finally {
      await rx.close();
    }
  });
});
