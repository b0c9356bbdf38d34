import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRedis, type ResolvedRedis } from '../../src/redis/resolve.ts';
import { fireEscalation } from '../../src/timers/escalation-timer.ts';
import { apiClient } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { completedEticketOrder } from '../support/delivery-issue-flow.ts';
import { baseFixture, BUYER, SELLER } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { openApiChecker } from '../support/openapi-check.ts';
import { startPartyEndpoints } from '../support/party-webhooks.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { until } from '../support/webhook-receiver.ts';

// The response window's durable timer: an issue left open past respond_by is escalated once, by
// the system, also when Redis loses its timer in between (FLUSHALL, on a Redis of this file's
// own); an answered one never is; an operator closes the escalated one with an outcome. Both
// parties get every event. The window is 3 seconds.

const UNANSWERED = 770;
const ANSWERED = 771;
const WINDOW_MS = 3_000;

describe('delivery issue escalation', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let redis: ResolvedRedis;
  let dataDir: string;
  let endpoints: Awaited<ReturnType<typeof startPartyEndpoints>>;
  let check: (method: string, path: string, status: number, body: unknown) => void;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-escalation-redis-'));
    redis = await resolveRedis({ dataDir, probeLocal: false });
    t = await startTestService({
      env: {
        REDIS_URL: redis.url,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        RELAY_INTERVAL_MS: '50',
        WEBHOOK_SWEEP_EVERY_MS: '300',
        TIMER_SWEEP_EVERY_MS: '300',
        DELIVERY_ISSUE_RESPONSE_WINDOW: `${WINDOW_MS / 1000}s`,
        OPS_WRITE: 'true',
      },
    });
    call = apiClient(t.url);
    await t.seed(baseFixture([UNANSWERED, ANSWERED]));
    endpoints = await startPartyEndpoints(call);
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as Parameters<typeof openApiChecker>[0];
    const checker = openApiChecker(doc);
    check = (method, p, status, body) => checker.check(method, p, status, body);
  });
  afterAll(async () => {
    await endpoints?.close();
    await t?.stop();
    await redis?.private?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const escalations = async (orderId: number) =>
    (
      await t.db.database
        .sql!`select count(*)::int as n from shipment_events where order_id = ${orderId} and kind = 'delivery_issue_escalated'`
    )[0]!.n as number;

  it('left unanswered, escalated once by the system across a FLUSHALL; answered, never; an operator closes it', async () => {
    const { etickets } = await completedEticketOrder(call, UNANSWERED);
    expect((await signedFetch(t.url, BUYER, 'GET', etickets[0]!.url)).status).toBe(200);
    await completedEticketOrder(call, ANSWERED);
    const open = await call(BUYER, 'POST', `/v9/orders/${UNANSWERED}/delivery_issues`, { reason: 'not_received' });
    expect(open.status).toBe(201);
    expect(Date.parse(open.body.respond_by) - Date.parse(open.body.opened_at)).toBe(WINDOW_MS);
    const other = await call(BUYER, 'POST', `/v9/orders/${ANSWERED}/delivery_issues`, { reason: 'transfer_not_accepted' });
    expect((await call(SELLER, 'POST', `/v9/delivery_issues/${other.body.id}/responses`, { notes: 'sent again' })).status).toBe(200);

    // Redis loses every job, the escalation's included; the sweep arms it again from Postgres.
    const client = new Redis(redis.url);
    await client.flushall();
    client.disconnect();

    const id = open.body.id as number;
    await until('the escalation', async () => (await call(BUYER, 'GET', `/v9/delivery_issues/${id}`)).body.state === 'escalated', 20_000);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(open.body.respond_by));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await escalations(UNANSWERED)).toBe(1);
    expect(await escalations(ANSWERED)).toBe(0);
    expect((await call(SELLER, 'GET', `/v9/delivery_issues/${other.body.id}`)).body.state).toBe('seller_responded');
    const read = await call(SELLER, 'GET', `/v9/delivery_issues/${id}`);
    check('GET', '/v9/delivery_issues/{id}', read.status, read.body);
    expect(read.body).toMatchObject({ state: 'escalated', escalated_by: 'system' });
    const history = (await call(BUYER, 'GET', `/v9/orders/${UNANSWERED}/events`)).body.events;
    expect(history.find((e: { kind: string }) => e.kind === 'delivery_issue_escalated')).toMatchObject({
      actor: { type: 'system', reason: 'response_window_passed' },
      command_id: null,
      details: { delivery_issue: { id, state: 'escalated' } },
    });

    // The seller's answer after the escalation is too late; an operator decides.
    expect((await call(SELLER, 'POST', `/v9/delivery_issues/${id}/responses`, { notes: 'late' })).status).toBe(422);
    // The operators' page lists it with its evidence beside it; the close form decides it.
    const page = await (await fetch(`${t.url}/ops/delivery_issues`)).text();
    expect(page).toContain(`<section class="issue" data-issue="${id}">`);
    expect(page).toContain('<td>delivery_issue_escalated</td><td>system</td>');
    expect(page).toContain('<td>eticket_downloaded</td><td>buyer</td>');
    expect(page).not.toContain(`data-issue="${other.body.id}"`);
    // As the page's form sends it: from the page (Origin), with the session's cookie and form token.
    const session = await fetch(`${t.url}/ops/delivery_issues`);
    const cookie = session.headers.get('set-cookie')!.split(';')[0]!;
    const formToken = /name="form_token" value="([^"]+)"/.exec(await session.text())![1]!;
    const close = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${t.url}/ops/delivery_issues/${id}/close`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: t.url, cookie, ...headers },
        body: new URLSearchParams({ form_token: formToken, ...form }).toString(),
      });
    const bad = await close({ outcome: 'nobody_at_fault' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('outcome: choose seller_at_fault, buyer_at_fault or no_fault');
    expect((await close({ outcome: 'no_fault' }, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await call(BUYER, 'GET', `/v9/delivery_issues/${id}`)).body.state).toBe('escalated');
    // The order view shows the order's issue with the same close action.
    const view = await (await fetch(`${t.url}/ops/orders/${UNANSWERED}`)).text();
    expect(view).toContain('<h2>Delivery issues (1)</h2>');
    expect(view).toContain(`<form method="post" action="/ops/delivery_issues/${id}/close" class="close">`);
    const closed = await close({ outcome: 'buyer_at_fault', notes: 'the buyer downloaded both files', operator: 'ops@test' });
    expect(closed.status).toBe(200);
    expect(await closed.text()).toContain(`issue ${id} closed: buyer_at_fault`);
    expect((await call(SELLER, 'GET', `/v9/delivery_issues/${id}`)).body).toMatchObject({
      state: 'closed',
      outcome: 'buyer_at_fault',
      close_notes: 'the buyer downloaded both files',
    });
    const again = await close({ outcome: 'no_fault' });
    expect(again.status).toBe(422);
    expect(await again.text()).toMatch(/delivery issue is closed/);
    expect((await call(BUYER, 'POST', `/v9/delivery_issues/${id}/resolve`, {})).status).toBe(422);

    // The evidence lists the issue's steps with the system's escalation and the operator's close.
    const evidence = (await call(BUYER, 'GET', `/v9/orders/${UNANSWERED}/delivery_evidence`)).body.timeline as Array<
      Record<string, unknown>
    >;
    expect(evidence.filter((e) => String(e.what).startsWith('delivery_issue_'))).toEqual([
      expect.objectContaining({ what: 'delivery_issue_opened', by: 'buyer', delivery_issue_id: id }),
      expect.objectContaining({ what: 'delivery_issue_escalated', by: 'system', reason: 'response_window_passed' }),
      expect.objectContaining({ what: 'delivery_issue_closed', by: 'system', reason: 'operator_closed', outcome: 'buyer_at_fault' }),
    ]);

    const types = [
      'shipment.created',
      'shipment.updated',
      'shipment.etickets_uploaded',
      'shipment.completed',
      'order.delivery_issue_opened',
      'order.delivery_issue_escalated',
      'order.delivery_issue_closed',
    ];
    for (const p of endpoints.parties) {
      await until(
        `${p.party}: webhooks`,
        () => p.receiver.acknowledged.filter((r) => r.body.order_id === UNANSWERED).length >= types.length,
      );
      expect(
        p.receiver.acknowledged.filter((r) => r.body.order_id === UNANSWERED).map((r) => r.body.type),
        p.party,
      ).toEqual(types);
      const feed = (await call(p.credential, 'GET', '/v9/events?limit=1000')).body.events.filter(
        (e: { order_id: number }) => e.order_id === UNANSWERED,
      );
      expect(
        feed.map((e: { type: string }) => e.type),
        p.party,
      ).toEqual(types);
    }
  });
});

describe('an escalation timer run several times at once', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    const sql = db.database.sql!;
    await sql`insert into brokerages (id, name) values (1, 's'), (2, 'b')`;
    await sql`insert into offices (id, brokerage_id, name) values (10, 1, 'o')`;
    await sql`insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email, state)
              values (1, '1-1', 10, 2, 'tbd', 1, 'n', 'n@x.test', 'completed'), (2, '1-2', 10, 2, 'tbd', 1, 'n', 'n@x.test', 'completed')`;
    await sql`insert into delivery_issues (order_id, state, snapshot, reason, opened_by_brokerage_id, command_id, opened_at, respond_by)
              values (1, 'open', '{"status":"active","value":"open"}', 'not_received', 2, 'c1', now() - interval '5 seconds', now() - interval '1 second'),
                     (2, 'open', '{"status":"active","value":"open"}', 'not_received', 2, 'c2', now(), now() + interval '1 hour')`;
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('escalates once (a redelivered job beside the sweep-armed copy, on several workers), and never early', async () => {
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => fireEscalation(db.database, 1)));
    expect(outcomes.filter((o) => o.kind === 'fired')).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'finished')).toHaveLength(5);
    expect(await fireEscalation(db.database, 1, Date.now() + 3_600_000)).toEqual({ kind: 'finished' });
    const [row] = await db.database
      .sql!`select count(*)::int as n from shipment_events where order_id = 1 and kind = 'delivery_issue_escalated'`;
    expect(row!.n).toBe(1);
    const early = await fireEscalation(db.database, 2);
    expect(early.kind).toBe('not_due');
    const [two] = await db.database.sql!`select state from delivery_issues where order_id = 2`;
    expect(two!.state).toBe('open');
  });
});
