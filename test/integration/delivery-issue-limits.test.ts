import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ANSWERS_PER_ORDER, MAX_ISSUES_PER_ORDER } from '../../src/domain/delivery-issue-rules.ts';
import { apiClient } from '../support/api.ts';
import { completedEticketOrder } from '../support/delivery-issue-flow.ts';
import { baseFixture, BUYER, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Bounded growth: an issue's events carry what changed, not the issue with every answer (so an
// event does not grow with the history); an order takes a documented number of seller answers
// and of delivery issues, and one more is 422 with a sentence that says so, changing nothing.

const ANSWERS = 1600;
const ISSUES = 1601;

describe('delivery issues: bounded growth', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture([ANSWERS, ISSUES]));
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const sql = () => t.db.database.sql!;
  const counts = async (orderId: number) => {
    const [row] = await sql()`select (select count(*) from delivery_issues where order_id = ${orderId})::int as issues,
      (select count(*) from delivery_issue_responses where order_id = ${orderId})::int as answers,
      (select count(*) from shipment_barcodes where order_id = ${orderId})::int as barcodes,
      (select count(*) from shipment_events where order_id = ${orderId})::int as events`;
    return row;
  };

  it('carries only what changed in each responded event, and stops the seller at the limit of answers', async () => {
    const { shipmentId } = await completedEticketOrder(call, ANSWERS);
    const opened = await call(BUYER, 'POST', `/v9/orders/${ANSWERS}/delivery_issues`, { reason: 'invalid_barcode', seats: ['12'] });
    expect(opened.status).toBe(201);
    const issueId = opened.body.id as number;
    for (let i = 0; i < MAX_ANSWERS_PER_ORDER; i++) {
      const res =
        i % 2 === 0
          ? await call(SELLER, 'POST', `/v9/shipments/${shipmentId}/reissue`, {
              tickets: [{ seat: '12', barcode: `NEW-12-${i}` }],
              notes: `try ${i}`,
            })
          : await call(SELLER, 'POST', `/v9/delivery_issues/${issueId}/responses`, { notes: `see the evidence, ${i}` });
      expect(res.status, `answer ${i}`).toBe(200);
    }
    const events = await sql()<Array<{ details: Record<string, any>; size: number }>>`
      select details, octet_length(details::text)::int as size from shipment_events
      where order_id = ${ANSWERS} and kind = 'delivery_issue_responded' order by seq`;
    expect(events).toHaveLength(MAX_ANSWERS_PER_ORDER);
    for (const [i, e] of events.entries()) {
      expect(e.details.delivery_issue, `event ${i}`).not.toHaveProperty('responses');
      expect(e.details.delivery_issue).toMatchObject({ id: issueId, state: 'seller_responded' });
      expect(e.details.response.notes).toBe(i % 2 === 0 ? `try ${i}` : `see the evidence, ${i}`);
    }
    // The last event is no larger than the first but for its own answer's text.
    expect(events.at(-1)!.size).toBeLessThan(events[0]!.size + 100);
    const opening = await sql()<Array<{ details: Record<string, any> }>>`
      select details from shipment_events where order_id = ${ANSWERS} and kind = 'delivery_issue_opened'`;
    expect(opening[0]!.details.delivery_issue).not.toHaveProperty('responses');
    // The issue itself still lists every answer.
    expect((await call(BUYER, 'GET', `/v9/delivery_issues/${issueId}`)).body.responses).toHaveLength(MAX_ANSWERS_PER_ORDER);

    const before = await counts(ANSWERS);
    for (const [path, body] of [
      [`/v9/shipments/${shipmentId}/reissue`, { tickets: [{ seat: '12', barcode: 'ONE-TOO-MANY' }] }],
      [`/v9/delivery_issues/${issueId}/responses`, { notes: 'one too many' }],
    ] as const) {
      const res = await call(SELLER, 'POST', path, body);
      expect(res.status, path).toBe(422);
      expect(res.body.errors[0]).toMatchObject({
        code: 'invalid_transition',
        message: `order ${ANSWERS} has had ${MAX_ANSWERS_PER_ORDER} answers from its seller (reissues and responses), the most one order may have; the buyer may escalate the issue for an operator to decide`,
      });
    }
    expect(await counts(ANSWERS)).toEqual(before);
    expect((await call(BUYER, 'POST', `/v9/delivery_issues/${issueId}/escalate`, {})).status).toBe(200);
  });

  it('stops opening issues on an order at the limit, resolved ones counted', async () => {
    await completedEticketOrder(call, ISSUES);
    for (let i = 0; i < MAX_ISSUES_PER_ORDER; i++) {
      const opened = await call(BUYER, 'POST', `/v9/orders/${ISSUES}/delivery_issues`, { reason: 'other' });
      expect(opened.status, `issue ${i}`).toBe(201);
      expect((await call(BUYER, 'POST', `/v9/delivery_issues/${opened.body.id}/resolve`, {})).status).toBe(200);
    }
    const before = await counts(ISSUES);
    const more = await call(BUYER, 'POST', `/v9/orders/${ISSUES}/delivery_issues`, { reason: 'other' });
    expect(more.status).toBe(422);
    expect(more.body.errors[0].message).toBe(
      `order ${ISSUES} has had ${MAX_ISSUES_PER_ORDER} delivery issues, the most one order may have; an operator can still look at it (docs/OPERATIONS.md, Delivery issues)`,
    );
    expect(await counts(ISSUES)).toEqual(before);
    expect((await call(BUYER, 'GET', `/v9/orders/${ISSUES}/delivery_issues`)).body.delivery_issues).toHaveLength(MAX_ISSUES_PER_ORDER);
  });
});
