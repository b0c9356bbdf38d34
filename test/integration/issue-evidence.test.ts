import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { baseFixture, BUYER, SELLER, BUYER_ADDRESS } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { b64, makePdf } from '../support/test-files.ts';

// Evidence an operator can decide on: a mailed order's label, tracking number and shipping are
// entries of the evidence under documented names; a delivery the seller reports is its claim;
// both parties' words are in the issue, the evidence and the operators' page, which also shows
// the envelope (carrier, tracking number and link, address, label) and a close form that chooses
// nothing and says its notes are shown to both parties.

const MAILED = 1700;
const TRACKED = 1701;
const USPS = '9400111202555842332669';
const UPS = '1Z5R89390357567127';
const ADDRESS = BUYER_ADDRESS;

describe('evidence of a mailed order and both parties words', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService({ env: { OPS_WRITE: 'true' } });
    await t.seed(baseFixture([MAILED, TRACKED]));
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  async function mailedShipment(orderId: number, type: string): Promise<number> {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const mailed = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, {
      type,
      ship_to_address_attributes: ADDRESS,
    });
    expect(mailed.status, JSON.stringify(mailed.body)).toBe(200);
    return mailed.body.id as number;
  }

  it('lists the label, the shipping and a seller-reported delivery; keeps every word; the ops page shows the envelope', async () => {
    const id = await mailedShipment(MAILED, 'USPS');
    const labelPdf = await makePdf(1, 'label');
    const up = await call(SELLER, 'POST', `/v9/shipments/${id}/airbill`, {
      airbill: b64(labelPdf),
      tracking_number: USPS,
    });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect((await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {})).body.state).toBe('in_transit');
    const delivered = await call(SELLER, 'POST', `/v9/shipments/${id}/tracking_events`, {
      status: 'delivered',
      occurred_at: new Date().toISOString(),
    });
    // Without a carrier account it is a claim: the buyer's confirmation window opens (API.md, Who may say what).
    expect(delivered.body).toMatchObject({ state: 'in_transit', tracking_event: { seller_claim: true } });

    const opened = await call(BUYER, 'POST', `/v9/orders/${MAILED}/delivery_issues`, {
      reason: 'not_received',
      notes: 'Nothing in the mailbox.',
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const issueId = opened.body.id as number;
    const answered = await call(SELLER, 'POST', `/v9/delivery_issues/${issueId}/responses`, { notes: 'USPS shows it delivered at 2pm.' });
    expect(answered.status).toBe(200);
    const escalated = await call(BUYER, 'POST', `/v9/delivery_issues/${issueId}/escalate`, { notes: 'The building has no mail room.' });
    expect(escalated.status).toBe(200);
    expect(escalated.body).toMatchObject({ escalation_notes: 'The building has no mail room.', resolution_notes: null });

    // The issue keeps both parties' words.
    const issue = (await call(SELLER, 'GET', `/v9/delivery_issues/${issueId}`)).body;
    expect(issue).toMatchObject({
      notes: 'Nothing in the mailbox.',
      escalation_notes: 'The building has no mail room.',
      responses: [expect.objectContaining({ kind: 'response', notes: 'USPS shows it delivered at 2pm.' })],
    });

    // The evidence: documented names, the tracking number, the seller's claim, every word.
    const timeline = (await call(BUYER, 'GET', `/v9/orders/${MAILED}/delivery_evidence`)).body.timeline as Array<Record<string, unknown>>;
    const whats = timeline.map((e) => e.what);
    expect(whats).not.toContain('transfer_proof_uploaded');
    expect(timeline.find((e) => e.what === 'airbill_created')).toMatchObject({ by: 'seller', tracking_number: USPS, source: 'uploaded' });
    expect(timeline.find((e) => e.what === 'shipped')).toMatchObject({ by: 'seller', tracking_number: USPS });
    expect(timeline.filter((e) => e.what === 'tracking_scan')).toEqual([
      expect.objectContaining({ status: 'delivered', by: 'seller', seller_claim: true }),
    ]);
    expect(timeline.filter((e) => String(e.what).startsWith('delivery_issue_'))).toEqual([
      expect.objectContaining({ what: 'delivery_issue_opened', by: 'buyer', notes: 'Nothing in the mailbox.' }),
      expect.objectContaining({ what: 'delivery_issue_responded', by: 'seller', notes: 'USPS shows it delivered at 2pm.' }),
      expect.objectContaining({ what: 'delivery_issue_escalated', by: 'buyer', notes: 'The building has no mail room.' }),
    ]);
    expect(JSON.stringify(timeline)).not.toContain('1 Main St');

    // The operators' page: the envelope, both parties' words, a form that chooses nothing.
    const page = await (await fetch(`${t.url}/ops/delivery_issues`)).text();
    const card = page.slice(page.indexOf(`<section class="issue" data-issue="${issueId}">`));
    expect(card).toContain('USPS');
    expect(card).toContain(USPS);
    expect(card).toMatch(new RegExp(`<a href="https://[^"]*usps[^"]*${USPS}[^"]*"`, 'i'));
    expect(card).toContain('Bo Buyer, 1 Main St, Apt 4, Chicago, IL, 60601, US');
    expect(card).toMatch(
      /<td>label<\/td><td><a href="\/ops\/shipments\/\d+\/airbill" [^>]*>open the label \(PDF\)<\/a> · uploaded, \d+ bytes/,
    );
    // The link opens the very PDF the seller uploaded, from the file store (D-179).
    const href = /<a href="(\/ops\/shipments\/\d+\/airbill)"/.exec(card)![1]!;
    const label = await fetch(`${t.url}${href}`);
    expect(label.status).toBe(200);
    expect(label.headers.get('content-type')).toBe('application/pdf');
    expect(label.headers.get('content-disposition')).toMatch(/^inline; /);
    expect(Buffer.from(await label.arrayBuffer()).toString('base64')).toBe(b64(labelPdf));
    expect((await fetch(`${t.url}/ops/shipments/${id + 100000}/airbill`)).status).toBe(404);
    expect(card).toContain('Nothing in the mailbox.');
    expect(card).toContain('USPS shows it delivered at 2pm.');
    expect(card).toContain('The building has no mail room.');
    expect(card).toContain('<option value="" selected disabled>choose an outcome</option>');
    expect(card).not.toMatch(/<option value="[a-z_]+" selected/);
    expect(card).toContain('The notes are shown to both parties');
    // The order view's issues carry the same words.
    const view = await (await fetch(`${t.url}/ops/orders/${MAILED}`)).text();
    const issues = view.slice(view.indexOf('<section id="delivery-issues">'));
    for (const said of ['Nothing in the mailbox.', 'USPS shows it delivered at 2pm.', 'The building has no mail room.'])
      expect(issues).toContain(said);
  });

  it('lists a tracking number given alone', async () => {
    const id = await mailedShipment(TRACKED, 'UPS');
    expect((await call(SELLER, 'PUT', `/v9/shipments/${id}/tracking`, { tracking_number: UPS })).status).toBe(200);
    const timeline = (await call(SELLER, 'GET', `/v9/orders/${TRACKED}/delivery_evidence`)).body.timeline as Array<Record<string, unknown>>;
    expect(timeline).toEqual([expect.objectContaining({ what: 'tracking_number_set', by: 'seller', tracking_number: UPS })]);
  });
});
