import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FulfilmentClient, IdempotencyConflict } from '../../src/index.ts';
import { apiClient, type ApiResponse } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Issue 52: one Idempotency-Key sent at once with two different requests. Requests that share a
// key share one job (its id is derived from the key), whose payload is the first one's; one
// request must win, and every request with the other body gets 409 idempotency_conflict, whatever
// the timing: in the synchronous, the asynchronous and the producer-client paths, and across API
// processes. Each path runs ROUNDS rounds of 20 requests (10 per body) on a fresh order.

const ROUNDS = 8;
const PER_BODY = 10;
const PATHS = ['sync', 'async', 'two-processes', 'client'] as const;
const orderOf = (path: number, round: number) => 3000 + path * 100 + round;

describe('one Idempotency-Key, two different requests at once: one wins, the other is 409', () => {
  let db: TestDatabase;
  const prefix = testPrefix();
  let first: TestService;
  let second: TestService;
  let client: FulfilmentClient;

  beforeAll(async () => {
    db = await createTestDatabase();
    first = await startTestService({ db, prefix });
    second = await startTestService({ db, prefix });
    const fixture = baseFixture(PATHS.flatMap((_, p) => Array.from({ length: ROUNDS }, (_, r) => orderOf(p, r))));
    // A second reviewer of the seller: the two bodies differ only in who reviewed the order.
    fixture.brokerages[0]!.users.push({ id: 101, name: 'Al Reviewer', email: 'al@acme.test' });
    await first.seed(fixture);
    client = new FulfilmentClient({ redisUrl: first.config.REDIS_URL, prefix, defaultTimeoutMs: 20_000 });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await second?.stop();
    await first?.stop();
    await dropPrefix(prefix);
    await db?.drop();
  });

  const reviewerOf = async (orderId: number) =>
    Number((await db.database.sql!`select reviewer_id from orders where id = ${orderId}`)[0]!.reviewer_id);
  const shipmentsOf = async (orderId: number) =>
    (await db.database.sql!`select count(*)::int as n from shipments where order_id = ${orderId}`)[0]!.n as number;

  /** 20 requests at once, 10 naming reviewer 100 and 10 naming 101, interleaved; answers by reviewer. */
  async function race(send: (reviewer: number, i: number) => Promise<{ status: number; code?: string }>) {
    const reviewers = Array.from({ length: PER_BODY * 2 }, (_, i) => (i % 2 === 0 ? 100 : 101));
    const answers = await Promise.all(reviewers.map((r, i) => send(r, i)));
    const by = (r: number) => answers.filter((_, i) => reviewers[i] === r);
    return { 100: by(100), 101: by(101) };
  }

  /** The winner's requests all answered `ok`, the loser's all 409 idempotency_conflict; one shipment. */
  async function expectOneWinner(orderId: number, answers: Record<100 | 101, Array<{ status: number; code?: string }>>, ok: number) {
    const winner = (await reviewerOf(orderId)) as 100 | 101;
    expect([100, 101]).toContain(winner);
    const loser = winner === 100 ? 101 : 100;
    expect(answers[winner].map((a) => a.status)).toEqual(Array(PER_BODY).fill(ok));
    expect(answers[loser]).toEqual(Array(PER_BODY).fill({ status: 409, code: 'idempotency_conflict' }));
    expect(await shipmentsOf(orderId)).toBe(1);
  }

  const http = (url: string, orderId: number, reviewer: number, key: string, headers: Record<string, string> = {}) =>
    apiClient(url)(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: reviewer }, { 'idempotency-key': key, ...headers });
  const outcome = (res: ApiResponse) => ({ status: res.status, ...(res.status === 409 ? { code: res.body.errors[0].code } : {}) });

  it(`synchronous calls (${ROUNDS} rounds of 20)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const orderId = orderOf(0, round);
      const answers = await race(async (r) => outcome(await http(first.url, orderId, r, `sync-${orderId}`)));
      await expectOneWinner(orderId, answers, 200);
    }
  }, 120_000);

  it(`Prefer: respond-async (${ROUNDS} rounds of 20)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const orderId = orderOf(1, round);
      const answers = await race(async (r) => outcome(await http(first.url, orderId, r, `async-${orderId}`, { prefer: 'respond-async' })));
      // A winner's request is 202 while its command runs, or the stored 200 once it has run.
      const normalised = Object.fromEntries(
        Object.entries(answers).map(([k, list]) => [k, list.map((a) => (a.status === 202 ? { status: 200 } : a))]),
      ) as typeof answers;
      await until(async () => (await reviewerOf(orderId)) > 0);
      await expectOneWinner(orderId, normalised, 200);
    }
  }, 120_000);

  it(`synchronous calls split over two API processes (${ROUNDS} rounds of 20)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const orderId = orderOf(2, round);
      const answers = await race(async (r, i) => outcome(await http(i % 4 < 2 ? first.url : second.url, orderId, r, `two-${orderId}`)));
      await expectOneWinner(orderId, answers, 200);
    }
  }, 120_000);

  it(`the producer client, awaiting (${ROUNDS} rounds of 20)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const orderId = orderOf(3, round);
      const answers = await race(async (r) => {
        try {
          const res = await client.acceptOrder(
            { order_id: orderId, reviewer_id: r },
            { brokerageId: 1, await: true, commandId: `client-${orderId}` },
          );
          return res.status === 409
            ? { status: 409, code: (res.body as { errors: Array<{ code: string }> }).errors[0]!.code }
            : { status: res.status };
        } catch (err) {
          if (err instanceof IdempotencyConflict) return { status: 409, code: err.code };
          throw err;
        }
      });
      await expectOneWinner(orderId, answers, 200);
    }
  }, 120_000);
});

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
