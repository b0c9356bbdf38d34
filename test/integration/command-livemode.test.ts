import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredential } from '../../src/auth/credentials.ts';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { SIMULATED_BROKERAGE_ID } from '../../src/sandbox/sandbox-twin.ts';
import { apiClient, type ApiResponse } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { baseFixture, BUYER, BUYER_ADDRESS, ORDERS, SELLER } from '../support/fixtures.ts';
import { nextInSeries } from '../support/mailed-world.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, TEST_SECRET_KEY, type TestService } from '../support/service.ts';
import { b64, makePdf } from '../support/test-files.ts';

// Issue 55, test mode: every command's answer of an object says its order's mode (D-207), as the
// object's read does: false for a test order, true for a live one; GET /v9/commands/:id shows it too.

const TEST_SELLER = { token: 'SellerCmdModeToken00000000000001', secret: 'seller-cmd-mode-secret-00000000000000001' };

type Cred = typeof SELLER;

describe("command answers say their order's mode", () => {
  let db: TestDatabase;
  const prefix = testPrefix();
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let simulatedBuyer: Cred;

  beforeAll(async () => {
    db = await createTestDatabase();
    t = await startTestService({ db, prefix });
    const fixture = baseFixture();
    fixture.brokerages[0]!.credentials.push({ kind: 'api', mode: 'test', ...TEST_SELLER } as never);
    await t.seed(fixture);
    call = apiClient(t.url);
    const simulated = await createCredential(db.database.db, SecretBox.fromKey(TEST_SECRET_KEY), { brokerageId: SIMULATED_BROKERAGE_ID });
    simulatedBuyer = { token: simulated.token, secret: simulated.secret };
  });
  afterAll(async () => {
    await t?.stop();
    await dropPrefix(prefix);
    await db?.drop();
  });

  const testOrder = async (): Promise<number> => {
    const created = await call(TEST_SELLER, 'POST', '/v9/test_helpers/orders', { role: 'seller', delivery: 'tbd', quantity: 2 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.livemode).toBe(false);
    return created.body.id as number;
  };

  /** A command's answer: 200 (or `status`), its livemode the mode's; the read of the same object says the same. */
  const said = (livemode: boolean, what: string, r: ApiResponse, status = 200) => {
    expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBe(status);
    expect(r.body.livemode, what).toBe(livemode);
    return r;
  };

  async function electronic(livemode: boolean, seller: Cred, buyer: Cred, orderId: number) {
    const accepted = said(livemode, 'accept', await call(seller, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 }));
    const commandId = (
      await db.database.sql!`select id from commands where name = 'order.accept' and payload->>'order_id' = ${String(orderId)}`
    )[0]!.id as string;
    const shown = await call(seller, 'GET', `/v9/commands/${commandId}`);
    expect(shown.body.response.body, 'GET /v9/commands/:id').toEqual(accepted.body);
    expect((await call(seller, 'GET', `/v9/orders/${orderId}`)).body.livemode).toBe(livemode);

    const xmobile = said(
      livemode,
      'update',
      await call(seller, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'XMobile' }),
    );
    const proof = { files: [{ file: b64(await makePdf(1, `proof ${orderId}`)) }] };
    said(livemode, 'transfer_verifications', await call(seller, 'POST', `/v9/shipments/${xmobile.body.id}/transfer_verifications`, proof));

    const eticket = said(
      livemode,
      'update to Eticket',
      await call(seller, 'PUT', `/v9/shipments/${xmobile.body.id}`, { mobile_transfer_type: 'Eticket' }),
    );
    const shipment = eticket.body.id as number;
    expect((await call(seller, 'GET', `/v9/shipments/${shipment}`)).body.livemode).toBe(livemode);
    const files = {
      etickets: [
        { eticket: b64(await makePdf(1, `12 of ${orderId}`)), seat: '12', barcode: `B-12-${orderId}` },
        { eticket: b64(await makePdf(1, `13 of ${orderId}`)), seat: '13', barcode: `B-13-${orderId}` },
      ],
    };
    said(livemode, 'etickets', await call(seller, 'POST', `/v9/shipments/${shipment}/etickets`, files));
    said(livemode, 'etickets again (unchanged)', await call(seller, 'POST', `/v9/shipments/${shipment}/etickets`, files));
    said(livemode, 'complete', await call(seller, 'PUT', `/v9/shipments/${shipment}/complete`, {}));
    said(
      livemode,
      'open issue',
      await call(buyer, 'POST', `/v9/orders/${orderId}/delivery_issues`, { reason: 'wrong_tickets', seats: ['12'] }),
      201,
    );
    const reissued = said(
      livemode,
      'reissue',
      await call(seller, 'POST', `/v9/shipments/${shipment}/reissue`, {
        etickets: [
          { eticket: b64(await makePdf(1, `12 again ${orderId}`)), seat: '12', barcode: `B-12b-${orderId}` },
          { eticket: b64(await makePdf(1, `13 again ${orderId}`)), seat: '13', barcode: `B-13-${orderId}` },
        ],
      }),
    );
    expect(reissued.body.delivery_issue.livemode).toBe(livemode);
  }

  async function mailed(livemode: boolean, seller: Cred, buyer: Cred, orderId: number, usps: string) {
    const accepted = said(livemode, 'accept', await call(seller, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 }));
    const mail = { type: 'USPS', ship_to_address_attributes: BUYER_ADDRESS };
    const shipment = said(livemode, 'update (mail)', await call(seller, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, mail)).body
      .id as number;
    const label = { airbill: b64(await makePdf(1, `label ${orderId}`)), tracking_number: usps };
    said(livemode, 'airbill', await call(seller, 'POST', `/v9/shipments/${shipment}/airbill`, label));
    said(livemode, 'tracking', await call(seller, 'PUT', `/v9/shipments/${shipment}/tracking`, { tracking_number: usps }));
    const scan = { status: 'in_transit', occurred_at: new Date().toISOString() };
    said(livemode, 'tracking_events', await call(seller, 'POST', `/v9/shipments/${shipment}/tracking_events`, scan));
    expect((await call(seller, 'GET', `/v9/shipments/${shipment}/tracking_events`)).body.livemode).toBe(livemode);
    said(livemode, 'confirm_receipt', await call(buyer, 'POST', `/v9/orders/${orderId}/confirm_receipt`, {}));
  }

  it('a live order: every answer livemode true', async () => {
    await electronic(true, SELLER, BUYER, ORDERS.tbd);
    await mailed(true, SELLER, BUYER, ORDERS.tbd2, '9400111202555842332669');
  });

  it('a test order: every answer livemode false', async () => {
    await electronic(false, TEST_SELLER, simulatedBuyer, await testOrder());
    await mailed(false, TEST_SELLER, simulatedBuyer, await testOrder(), nextInSeries('9400111202555842332669'));
  });
});
