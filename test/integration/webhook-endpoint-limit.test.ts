import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { baseFixture, BUYER, SELLER, SELLER_USER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

const LIMIT = 3;

describe('webhook endpoints per brokerage', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_MAX_ENDPOINTS_PER_BROKERAGE: String(LIMIT) } });
    await t.seed(baseFixture());
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const stored = async (brokerageId: number) =>
    (await t.db.database.rows<{ n: number }>('select count(*)::int as n from webhook_endpoints where brokerage_id = $1', [brokerageId]))[0]!
      .n;

  it('refuses one endpoint more than the limit with 409 limit_reached, even when asked all at once; other brokerages are not counted', async () => {
    // Twice the limit at once, by both credential kinds of the brokerage: exactly the limit is created.
    const answers = await Promise.all(
      Array.from({ length: LIMIT * 2 }, (_, i) =>
        call(i % 2 ? SELLER_USER : SELLER, 'POST', '/v9/webhook_endpoints', { url: `http://127.0.0.1:9/${i}` }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(LIMIT).fill(201), ...Array(LIMIT).fill(409)]);
    for (const refused of answers.filter((a) => a.status === 409)) {
      expect(refused.body).toEqual({
        errors: [
          { code: 'limit_reached', message: `this brokerage has ${LIMIT} webhook endpoints, the most it may have; delete one first` },
        ],
      });
    }
    expect(await stored(1)).toBe(LIMIT);

    // The buyer's brokerage has its own limit.
    expect((await call(BUYER, 'POST', '/v9/webhook_endpoints', { url: 'http://127.0.0.1:9/b' })).status).toBe(201);

    // Deleting one makes room for one.
    const first = answers.find((a) => a.status === 201)!.body as { id: number };
    expect((await call(SELLER, 'DELETE', `/v9/webhook_endpoints/${first.id}`)).status).toBe(204);
    expect((await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: 'http://127.0.0.1:9/again' })).status).toBe(201);
    expect((await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: 'http://127.0.0.1:9/more' })).status).toBe(409);
    expect(await stored(1)).toBe(LIMIT);
  });
});
