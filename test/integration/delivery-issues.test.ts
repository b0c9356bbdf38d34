import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FulfilmentClient, InvalidParams } from '../../src/index.ts';
import openHandler from '../../workers/delivery-issue-open.ts';
import { runJob } from '../support/run-command.ts';
import { apiClient } from '../support/api.ts';
import { runCli } from '../support/cli.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { completedEticketOrder } from '../support/delivery-issue-flow.ts';
import { baseFixture, BUYER, SELLER, STRANGER } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { openApiChecker } from '../support/openapi-check.ts';
import { startPartyEndpoints } from '../support/party-webhooks.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { b64, makePdf, makePng } from '../support/test-files.ts';
import { until } from '../support/webhook-receiver.ts';

// A buyer says the tickets did not arrive: an Eticket order completed and downloaded, an issue
// opened, the seller reissues new files and barcodes (the old barcodes revoked), the buyer
// resolves; every refusal in the contract's error shape with nothing changed; the evidence lists
// the downloads and link uses with their times; both parties get every event by webhook and feed.

const FLOW = 760;
const REFUSALS = 761;
const PENDING = 762;
const ANSWERED = 763;
const UPSTREAM = 764;
/** Accepted, not delivered: one past its deliver_by (the tickets are late), one not yet. */
const LATE = 765;
const NOT_YET = 766;
const DEDUPED = 767;

describe('delivery issues: open, reissue, resolve', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let endpoints: Awaited<ReturnType<typeof startPartyEndpoints>>;
  let check: (method: string, path: string, status: number, body: unknown) => void;
  beforeAll(async () => {
    t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', RELAY_INTERVAL_MS: '50' } });
    const fixture = baseFixture([FLOW, REFUSALS, PENDING, ANSWERED, UPSTREAM, LATE, NOT_YET, DEDUPED]);
    for (const o of fixture.orders as Array<Record<string, unknown>>) {
      if (o.id === LATE) o.deliver_by = new Date(Date.now() - 3_600_000).toISOString();
      if (o.id === NOT_YET) o.deliver_by = new Date(Date.now() + 24 * 3_600_000).toISOString();
    }
    await t.seed(fixture);
    call = apiClient(t.url);
    endpoints = await startPartyEndpoints(call);
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as Parameters<typeof openApiChecker>[0];
    const checker = openApiChecker(doc);
    check = (method, path, status, body) => checker.check(method, path, status, body);
  });
  afterAll(async () => {
    await endpoints?.close();
    await t?.stop();
  });

  const sql = () => t.db.database.sql!;
  const counts = async (orderId: number) => {
    const [row] = await sql()`select (select count(*) from delivery_issues where order_id = ${orderId})::int as issues,
      (select count(*) from delivery_issue_responses where order_id = ${orderId})::int as responses,
      (select count(*) from shipment_file_sets where order_id = ${orderId})::int as sets,
      (select count(*) from shipment_barcodes where order_id = ${orderId})::int as barcodes,
      (select count(*) from shipment_events where order_id = ${orderId})::int as events`;
    return row;
  };

  async function bothPartiesSaw(orderId: number, types: string[]) {
    for (const p of endpoints.parties) {
      await until(
        `${p.party}: webhooks of order ${orderId}`,
        () => p.receiver.acknowledged.filter((r) => r.body.order_id === orderId).length >= types.length,
      );
      const hooks = p.receiver.acknowledged.filter((r) => r.body.order_id === orderId).map((r) => r.body.type);
      expect(hooks, p.party).toEqual(types);
      let feed: string[] = [];
      await until(`${p.party}: feed of order ${orderId}`, async () => {
        const r = await call(p.credential, 'GET', '/v9/events?limit=1000');
        feed = r.body.events.filter((e: { order_id: number }) => e.order_id === orderId).map((e: { type: string }) => e.type);
        return feed.length >= types.length;
      });
      expect(feed, p.party).toEqual(types);
    }
  }

  it('wrong_tickets: downloaded, opened, reissued with new files and barcodes (old ones revoked), resolved', async () => {
    const { shipmentId, etickets } = await completedEticketOrder(call, FLOW);
    // The buyer downloads the first e-ticket and makes a one-time link for the second, which is used.
    const got = await signedFetch(t.url, BUYER, 'GET', etickets[0]!.url);
    expect(got.status).toBe(200);
    const link = await call(BUYER, 'POST', `/v9/shipments/${shipmentId}/etickets/link`, { eticket_id: etickets[1]!.id });
    expect(link.status).toBe(201);
    expect((await fetch(link.body.url)).status).toBe(200); // the link's page: a scanner's fetch uses nothing up
    expect((await fetch(link.body.url, { method: 'POST' })).status).toBe(200);

    const opened = await call(BUYER, 'POST', `/v9/orders/${FLOW}/delivery_issues`, {
      reason: 'wrong_tickets',
      seats: ['12'],
      notes: 'seat 12 is for another game',
    });
    check('POST', '/v9/orders/{id}/delivery_issues', opened.status, opened.body);
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({
      order_id: FLOW,
      state: 'open',
      reason: 'wrong_tickets',
      seats: ['12'],
      notes: 'seat 12 is for another game',
    });
    const respondBy = Date.parse(opened.body.respond_by) - Date.parse(opened.body.opened_at);
    expect(respondBy).toBe(48 * 3600_000);
    const issueId = opened.body.id as number;

    const again = await call(BUYER, 'POST', `/v9/orders/${FLOW}/delivery_issues`, { reason: 'other' });
    expect(again.status).toBe(409);
    expect(again.body.errors[0]).toMatchObject({ code: 'delivery_issue_open', delivery_issue_id: issueId });
    check('POST', '/v9/orders/{id}/delivery_issues', again.status, again.body);

    const pdfs = [await makePdf(1, 'new 12'), await makePdf(1, 'new 13')];
    const before = await counts(FLOW);
    const badFile = await call(SELLER, 'POST', `/v9/shipments/${shipmentId}/reissue`, {
      etickets: [{ eticket: b64(makePng()) }, { eticket: b64(pdfs[1]!) }],
    });
    expect(badFile.status).toBe(400);
    expect(badFile.body.errors[0].field).toBe('etickets.0.eticket');
    const badPages = await call(SELLER, 'POST', `/v9/shipments/${shipmentId}/reissue`, { etickets: [{ eticket: b64(pdfs[0]!) }] });
    expect(badPages.status).toBe(400);
    expect(badPages.body.errors[0].field).toBe('etickets');
    const byBuyer = await call(BUYER, 'POST', `/v9/shipments/${shipmentId}/reissue`, { tickets: [{ seat: '12', barcode: 'X' }] });
    expect(byBuyer.status).toBe(403);
    const empty = await call(SELLER, 'POST', `/v9/shipments/${shipmentId}/reissue`, { notes: 'nothing new' });
    expect(empty.status).toBe(400);
    expect(await counts(FLOW)).toEqual(before);

    const reissued = await call(SELLER, 'POST', `/v9/shipments/${shipmentId}/reissue`, {
      etickets: [
        { eticket: b64(pdfs[0]!), seat: '12', barcode: 'NEW-12' },
        { eticket: b64(pdfs[1]!), seat: '13', barcode: `OLD-13-${FLOW}` },
      ],
      notes: 'the right game this time',
    });
    check('POST', '/v9/shipments/{id}/reissue', reissued.status, reissued.body);
    expect(reissued.status).toBe(200);
    expect(reissued.body.delivery_issue).toMatchObject({ id: issueId, state: 'seller_responded' });
    expect(reissued.body.etickets).toHaveLength(2);
    const reissueId = reissued.body.reissue_id as number;
    expect(reissued.body.barcodes.revoked).toEqual([
      expect.objectContaining({ seat: '12', barcode: `OLD-12-${FLOW}`, revoked_at: expect.any(String), revoked_by_reissue_id: reissueId }),
    ]);
    expect(reissued.body.barcodes.live.map((b: { barcode: string }) => b.barcode).sort()).toEqual(['NEW-12', `OLD-13-${FLOW}`]);

    // The shipment shows its barcodes live and revoked apart; the old files stay in the history, no longer served.
    const shipment = await call(BUYER, 'GET', `/v9/shipments/${shipmentId}`);
    check('GET', '/v9/shipments/{id}', shipment.status, shipment.body);
    expect(shipment.body.barcodes).toEqual(reissued.body.barcodes);
    const list = await call(BUYER, 'GET', `/v9/shipments/${shipmentId}/etickets`);
    expect(list.body.uploads).toHaveLength(2);
    expect(list.body.uploads[0].replaced_at).not.toBeNull();
    expect(list.body.etickets).toEqual(reissued.body.etickets);
    expect((await signedFetch(t.url, BUYER, 'GET', etickets[0]!.url)).status).toBe(404);
    // The operator's order view lists the seats' tickets live and revoked apart.
    const view = await (await fetch(`${t.url}/ops/orders/${FLOW}`)).text();
    expect(view).toMatch(new RegExp(`<tr class="revoked" data-seat="12">.*OLD-12-${FLOW}.*revoked</td></tr>`));
    expect(view).toMatch(/<tr class="live" data-seat="12">.*NEW-12.*live<\/td><\/tr>/);

    expect((await call(SELLER, 'POST', `/v9/delivery_issues/${issueId}/resolve`, {})).status).toBe(403);
    const resolved = await call(BUYER, 'POST', `/v9/delivery_issues/${issueId}/resolve`, {});
    check('POST', '/v9/delivery_issues/{id}/resolve', resolved.status, resolved.body);
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ state: 'resolved', resolved_at: expect.any(String) });
    expect(resolved.body.responses).toEqual([
      expect.objectContaining({ id: reissueId, kind: 'reissue', notes: 'the right game this time' }),
    ]);
    const twice = await call(BUYER, 'POST', `/v9/delivery_issues/${issueId}/resolve`, {});
    expect(twice.status).toBe(422);
    expect(twice.body.errors[0].message).toMatch(/^delivery issue is resolved/);
    const late = await call(SELLER, 'POST', `/v9/shipments/${shipmentId}/reissue`, { tickets: [{ seat: '12', barcode: 'LATE' }] });
    expect(late.status).toBe(422);
    expect(late.body.errors[0].message).toMatch(/no open delivery issue/);

    for (const cred of [SELLER, BUYER]) {
      const read = await call(cred, 'GET', `/v9/delivery_issues/${issueId}`);
      check('GET', '/v9/delivery_issues/{id}', read.status, read.body);
      expect(read.body).toEqual(resolved.body);
      const all = await call(cred, 'GET', `/v9/orders/${FLOW}/delivery_issues`);
      check('GET', '/v9/orders/{id}/delivery_issues', all.status, all.body);
      expect(all.body.delivery_issues).toEqual([resolved.body]);
    }
    expect((await call(STRANGER, 'GET', `/v9/delivery_issues/${issueId}`)).status).toBe(404);
    expect((await call(STRANGER, 'GET', `/v9/orders/${FLOW}/delivery_issues`)).status).toBe(404);
    expect((await call(STRANGER, 'GET', `/v9/orders/${FLOW}/delivery_evidence`)).status).toBe(404);

    // The evidence: oldest first, with the buyer's download and the link's use and their times.
    const evidence = await call(SELLER, 'GET', `/v9/orders/${FLOW}/delivery_evidence`);
    check('GET', '/v9/orders/{id}/delivery_evidence', evidence.status, evidence.body);
    const timeline = evidence.body.timeline as Array<{ at: string; what: string; by: string; [k: string]: unknown }>;
    expect(timeline.map((e) => e.at)).toEqual([...timeline.map((e) => e.at)].sort());
    const whats = timeline.map((e) => e.what);
    expect(whats).toEqual(
      expect.arrayContaining([
        'etickets_uploaded',
        'barcode_given',
        'completed',
        'eticket_downloaded',
        'link_created',
        'link_used',
        'delivery_issue_opened',
        'etickets_replaced',
        'barcode_revoked',
        'reissued',
        'delivery_issue_responded',
        'delivery_issue_resolved',
      ]),
    );
    expect(whats.indexOf('completed')).toBeLessThan(whats.indexOf('eticket_downloaded'));
    expect(whats.indexOf('eticket_downloaded')).toBeLessThan(whats.indexOf('delivery_issue_opened'));
    expect(timeline.find((e) => e.what === 'eticket_downloaded')).toMatchObject({
      by: 'buyer',
      eticket_id: etickets[0]!.id,
      at: expect.any(String),
    });
    const used = timeline.find((e) => e.what === 'link_used')!;
    expect(used).toMatchObject({ by: 'one_time_link', eticket_id: etickets[1]!.id, link: expect.stringMatching(/^[0-9a-f]{12}$/) });
    expect(timeline.find((e) => e.what === 'link_created')).toMatchObject({ by: 'buyer', link: used.link });
    expect(String(used.from)).toMatch(/\/(24|48)$/);
    expect(timeline.find((e) => e.what === 'barcode_revoked')).toMatchObject({ barcode: `OLD-12-${FLOW}`, reissue_id: reissueId });
    expect(JSON.stringify(timeline)).not.toContain(new URL(link.body.url).pathname.split('/').pop()!);
    expect((await call(BUYER, 'GET', `/v9/orders/${FLOW}/delivery_evidence`)).body).toEqual(evidence.body);

    await bothPartiesSaw(FLOW, [
      'shipment.created',
      'shipment.updated',
      'shipment.etickets_uploaded',
      'shipment.completed',
      'order.delivery_issue_opened',
      'shipment.reissued',
      'order.delivery_issue_responded',
      'order.delivery_issue_resolved',
    ]);
  });

  it('refuses bad input with the contract error shape and changes nothing', async () => {
    const { shipmentId } = await completedEticketOrder(call, REFUSALS);
    const path = `/v9/orders/${REFUSALS}/delivery_issues`;
    const before = await counts(REFUSALS);
    const bySeller = await call(SELLER, 'POST', path, { reason: 'not_received' });
    expect(bySeller.status).toBe(403);
    expect(bySeller.body.errors[0]).toMatchObject({ code: 'forbidden', message: 'only the buyer may open a delivery issue' });
    expect((await call(STRANGER, 'POST', path, { reason: 'not_received' })).status).toBe(404);
    const badReason = await call(BUYER, 'POST', path, { reason: 'lost' });
    expect(badReason.status).toBe(400);
    expect(badReason.body.errors[0]).toMatchObject({ code: 'invalid_params', field: 'reason' });
    const badSeat = await call(BUYER, 'POST', path, { reason: 'invalid_barcode', seats: ['12', '99'] });
    expect(badSeat.status).toBe(400);
    expect(badSeat.body.errors[0]).toMatchObject({ code: 'invalid_params', field: 'seats.1' });
    expect(badSeat.body.errors[0].message).toMatch(/seat 99 is not on order/);
    expect((await call(BUYER, 'POST', path, { reason: 'other', extra: 1 })).status).toBe(400);
    const noIssue = await call(SELLER, 'POST', `/v9/shipments/${shipmentId}/reissue`, { tickets: [{ seat: '12', barcode: 'B' }] });
    expect(noIssue.status).toBe(422);
    expect(noIssue.body.errors[0].message).toMatch(/no open delivery issue/);
    expect(await counts(REFUSALS)).toEqual(before);

    // An issue on a pending order (and on an accepted one with no deadline passed) is 422.
    const pending = await call(BUYER, 'POST', `/v9/orders/${PENDING}/delivery_issues`, { reason: 'not_received' });
    expect(pending.status).toBe(422);
    expect(pending.body.errors[0].message).toMatch(/order 762 is pending/);
    expect(await counts(PENDING)).toMatchObject({ issues: 0, events: 0 });
    const reject = { reviewer_id: 100, reason: 'Duplicate Order' };
    expect((await call(SELLER, 'POST', `/v9/orders/${PENDING}/reject`, reject)).status).toBe(200);
    const rejected = await call(BUYER, 'POST', `/v9/orders/${PENDING}/delivery_issues`, { reason: 'not_received' });
    expect(rejected.status).toBe(422);
    expect(rejected.body.errors[0]).toMatchObject({ code: 'invalid_transition', message: expect.stringMatching(/order 762 is rejected/) });
    expect(await counts(PENDING)).toMatchObject({ issues: 0, events: 1 });

    // Idempotency: the same key with the same body answers the first answer; with another body, 409.
    const key = { 'idempotency-key': `issue-${REFUSALS}` };
    const first = await call(BUYER, 'POST', path, { reason: 'not_received' }, key);
    expect(first.status).toBe(201);
    const replay = await call(BUYER, 'POST', path, { reason: 'not_received' }, key);
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    const other = await call(BUYER, 'POST', path, { reason: 'other' }, key);
    expect(other.status).toBe(409);
    expect(other.body.errors[0].code).toBe('idempotency_conflict');
    const issueId = first.body.id as number;

    // Wrong parties on each step; unknown ids.
    const respond = `/v9/delivery_issues/${issueId}/responses`;
    expect((await call(BUYER, 'POST', respond, { notes: 'x' })).status).toBe(403);
    expect((await call(STRANGER, 'POST', respond, { notes: 'x' })).status).toBe(404);
    expect((await call(SELLER, 'POST', respond, {})).body.errors[0]).toMatchObject({ code: 'invalid_params', field: 'notes' });
    expect((await call(SELLER, 'POST', `/v9/delivery_issues/${issueId}/escalate`, {})).status).toBe(403);
    expect((await call(BUYER, 'POST', '/v9/delivery_issues/999999/resolve', {})).status).toBe(404);
    expect((await call(BUYER, 'GET', '/v9/delivery_issues/999999')).status).toBe(404);
    expect((await call(BUYER, 'POST', `/v9/shipments/${shipmentId}/reissue`, { tickets: [{ seat: '12', barcode: 'B' }] })).status).toBe(
      403,
    );
    const link = await call(SELLER, 'POST', `/v9/shipments/${shipmentId}/reissue`, { x_mobile_link: 'https://x.test/t' });
    expect(link.body.errors[0]).toMatchObject({ code: 'invalid_params', field: 'x_mobile_link' });
    const [issue] = await sql()`select state from delivery_issues where id = ${issueId}`;
    expect(issue!.state).toBe('open');
  });

  it('the seller answers with the evidence, the buyer escalates, an operator closes it at the terminal', async () => {
    await completedEticketOrder(call, ANSWERED);
    const opened = await call(BUYER, 'POST', `/v9/orders/${ANSWERED}/delivery_issues`, { reason: 'not_received' });
    expect(opened.status).toBe(201);
    const id = opened.body.id as number;
    const answered = await call(SELLER, 'POST', `/v9/delivery_issues/${id}/responses`, { notes: 'you downloaded them; see the evidence' });
    check('POST', '/v9/delivery_issues/{id}/responses', answered.status, answered.body);
    expect(answered.body).toMatchObject({
      state: 'seller_responded',
      responses: [{ kind: 'response', notes: 'you downloaded them; see the evidence' }],
    });
    const escalated = await call(BUYER, 'POST', `/v9/delivery_issues/${id}/escalate`, { notes: 'they never came' });
    check('POST', '/v9/delivery_issues/{id}/escalate', escalated.status, escalated.body);
    expect(escalated.body).toMatchObject({ state: 'escalated', escalated_by: 'buyer' });
    expect((await call(SELLER, 'POST', `/v9/delivery_issues/${id}/responses`, { notes: 'again' })).status).toBe(422);
    expect((await call(BUYER, 'POST', `/v9/delivery_issues/${id}/escalate`, {})).status).toBe(422);

    // An operator at the terminal: the escalated issues, then the close, through the service's workers.
    const env = {
      DATABASE_URL: t.db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: t.prefix,
      LOG_LEVEL: 'silent',
      FULFIL_SECRET_KEY: t.config.FULFIL_SECRET_KEY!,
    };
    const list = await runCli(['issues', 'list', '--state', 'escalated', '--json'], env);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).delivery_issues.map((i: { id: number }) => i.id)).toEqual([id]);
    const bad = await runCli(['issues', 'close', String(id), '--outcome', 'everyone'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--outcome: one of seller_at_fault, buyer_at_fault, no_fault');
    const closed = await runCli(
      ['issues', 'close', String(id), '--outcome', 'seller_at_fault', '--notes', 'never sent', '--operator', 'ann'],
      env,
    );
    expect(closed.stderr).toBe('');
    expect(closed.stdout).toBe(`issue ${id} closed: seller_at_fault\n`);
    expect(closed.code).toBe(0);
    const read = await call(BUYER, 'GET', `/v9/delivery_issues/${id}`);
    expect(read.body).toMatchObject({
      state: 'closed',
      outcome: 'seller_at_fault',
      close_notes: 'never sent',
      closed_at: expect.any(String),
    });
    const again = await runCli(['issues', 'close', String(id), '--outcome', 'no_fault'], env);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/delivery issue is closed/);
    await bothPartiesSaw(ANSWERED, [
      'shipment.created',
      'shipment.updated',
      'shipment.etickets_uploaded',
      'shipment.completed',
      'order.delivery_issue_opened',
      'order.delivery_issue_responded',
      'order.delivery_issue_escalated',
      'order.delivery_issue_closed',
    ]);
    const closedEvent = (await call(SELLER, 'GET', `/v9/orders/${ANSWERED}/events`)).body.events.find(
      (e: { kind: string }) => e.kind === 'delivery_issue_closed',
    );
    expect(closedEvent).toMatchObject({
      actor: { type: 'system', reason: 'operator_closed' },
      details: { outcome: 'seller_at_fault', notes: 'never sent', operator: 'ann' },
    });
  });

  it('upstream systems send the same commands with the client package', async () => {
    const { shipmentId } = await completedEticketOrder(call, UPSTREAM);
    const client = new FulfilmentClient({ redisUrl: t.config.REDIS_URL, prefix: t.prefix, defaultTimeoutMs: 15_000 });
    try {
      await expect(client.openDeliveryIssue({ order_id: UPSTREAM, reason: 'lost' as 'other' }, { brokerageId: 2 })).rejects.toThrow(
        InvalidParams,
      );
      const opened = await client.openDeliveryIssue(
        { order_id: UPSTREAM, reason: 'invalid_barcode', seats: ['13'] },
        { brokerageId: 2, await: true },
      );
      expect(opened).toMatchObject({ status: 201, body: { state: 'open', seats: ['13'] } });
      const id = (opened.body as { id: number }).id;
      const answered = await client.respondToDeliveryIssue(
        { issue_id: id, notes: 'checking with the box office' },
        { brokerageId: 1, await: true },
      );
      expect(answered).toMatchObject({ status: 200, body: { state: 'seller_responded' } });
      const reissued = await client.reissueShipment(
        { shipment_id: shipmentId, tickets: [{ seat: '13', barcode: 'BOX-13' }] },
        { brokerageId: 1, await: true },
      );
      expect(reissued.status).toBe(200);
      expect((reissued.body as { barcodes: { revoked: unknown[] } }).barcodes.revoked).toEqual([
        expect.objectContaining({ seat: '13', barcode: `OLD-13-${UPSTREAM}` }),
      ]);
      expect(await client.escalateDeliveryIssue({ issue_id: id }, { brokerageId: 1, await: true })).toMatchObject({ status: 403 });
      expect(await client.resolveDeliveryIssue({ issue_id: id, notes: 'works now' }, { brokerageId: 2, await: true })).toMatchObject({
        status: 200,
        body: { state: 'resolved' },
      });
    } finally {
      await client.close();
    }
  });

  it('a shipment still in transit past deliver_by may have an issue; before deliver_by it may not', async () => {
    for (const id of [LATE, NOT_YET]) {
      const accepted = await call(SELLER, 'POST', `/v9/orders/${id}/accept`, { reviewer_id: 100 });
      expect(
        (await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'XMobile' })).status,
      ).toBe(200);
    }
    const early = await call(BUYER, 'POST', `/v9/orders/${NOT_YET}/delivery_issues`, { reason: 'not_received' });
    expect(early.status).toBe(422);
    expect(early.body.errors[0].message).toMatch(/has not passed/);
    const late = await call(BUYER, 'POST', `/v9/orders/${LATE}/delivery_issues`, { reason: 'not_received' });
    expect(late.status).toBe(201);
    expect(late.body).toMatchObject({ state: 'open', order_id: LATE, shipment_id: expect.any(Number) });
    // The seller delivers late the normal way; a reissue is for a completed shipment.
    const reissue = await call(SELLER, 'POST', `/v9/shipments/${late.body.shipment_id}/reissue`, { x_mobile_link: 'https://x.test/t' });
    expect(reissue.status).toBe(422);
    expect(reissue.body.errors[0].message).toMatch(/complete it instead/);
  });

  it('a command delivered twice at once, and again later, opens one issue with one event (deduped by command id)', async () => {
    await completedEticketOrder(call, DEDUPED);
    const envelope = {
      commandId: `open-${DEDUPED}`,
      actor: { brokerageId: 2, userId: null, via: 'upstream' as const },
      requestHash: 'same',
      payload: { order_id: DEDUPED, reason: 'not_received' },
    };
    const [a, b] = await Promise.all([runJob(t.db.database, openHandler, envelope), runJob(t.db.database, openHandler, envelope)]);
    const c = await runJob(t.db.database, openHandler, envelope);
    expect([a.status, b.status, c.status]).toEqual([201, 201, 201]);
    expect(b.body).toEqual(a.body);
    expect(c.body).toEqual(a.body);
    expect(await counts(DEDUPED)).toMatchObject({ issues: 1 });
    const [events] =
      await sql()`select count(*)::int as n from shipment_events where order_id = ${DEDUPED} and kind = 'delivery_issue_opened'`;
    expect(events!.n).toBe(1);
    // Another command id is another request: the order's issue is still open.
    const other = await runJob(t.db.database, openHandler, { ...envelope, commandId: `open-${DEDUPED}-2` });
    expect(other.status).toBe(409);
  });
});
