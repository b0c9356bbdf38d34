import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { baseFixture } from '../support/fixtures.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { until } from '../support/webhook-receiver.ts';

// A hold on an order that lives at a test clock: placed at the clock's time, released by the
// clock's advance at its release_at (not by the wall clock), its deadline timers waiting while
// held and firing at the moved deadline, each once, stamped with the clock's time.

const TEST_SELLER = { token: 'SellerHoldClockToken000000000001', secret: 'seller-hold-clock-secret-000000000000001' };
const DAY = 86_400_000;
const T0 = Date.parse('2031-03-01T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('holds on a test clock', () => {
  let db: TestDatabase;
  const prefix = testPrefix();
  let t: TestService;
  let call: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    db = await createTestDatabase();
    t = await startTestService({ db, prefix });
    const f = baseFixture();
    f.brokerages[0]!.credentials.push({ kind: 'api', mode: 'test', ...TEST_SELLER } as never);
    await t.seed(f);
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
    await dropPrefix(prefix);
    await db?.drop();
  });

  it('the advance releases the hold at its release_at and the deadline fires at its moved time', async () => {
    const clock = await call(TEST_SELLER, 'POST', '/v9/test_clocks', { frozen_time: iso(T0) });
    expect(clock.status).toBe(201);
    const clockId = clock.body.id as number;
    const deliverBy = T0 + 3 * DAY;
    const created = await call(TEST_SELLER, 'POST', '/v9/test_helpers/orders', {
      role: 'seller',
      deliver_by: iso(deliverBy),
      test_clock: clockId,
    });
    expect(created.status).toBe(201);
    const orderId = created.body.id as number;
    expect((await call(TEST_SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 })).status).toBe(200);
    const releaseAt = T0 + 4 * DAY;
    const placed = await call(TEST_SELLER, 'POST', `/v9/orders/${orderId}/holds`, {
      reason: 'venue_release_pending',
      release_at: iso(releaseAt),
    });
    expect(placed.status).toBe(201);
    expect(placed.body).toMatchObject({ placed_at: iso(T0), livemode: false });
    // A release_at before the clock's time is in the past, whatever the wall says.
    const past = await call(TEST_SELLER, 'POST', `/v9/orders/${orderId}/holds`, { reason: 'other', release_at: iso(T0 - 1_000) });
    expect(past.status).toBe(400);

    expect((await call(TEST_SELLER, 'POST', `/v9/test_clocks/${clockId}/advance`, { frozen_time: iso(T0 + 10 * DAY) })).status).toBe(200);
    await until('the clock ready', async () => (await call(TEST_SELLER, 'GET', `/v9/test_clocks/${clockId}`)).body.status === 'ready');
    const [hold] = (await call(TEST_SELLER, 'GET', `/v9/orders/${orderId}/holds`)).body.holds;
    expect(hold).toMatchObject({
      state: 'released',
      release_why: 'release_at',
      released_at: iso(releaseAt),
      deadline_extended_ms: 4 * DAY,
    });
    const movedTo = deliverBy + 4 * DAY;
    const events = (await call(TEST_SELLER, 'GET', `/v9/orders/${orderId}/events`)).body.events as Array<{ kind: string; at: string }>;
    expect(events.map((e) => [e.kind, e.at])).toEqual([
      ['created', iso(T0)],
      ['hold_placed', iso(T0)],
      ['hold_released', iso(releaseAt)],
      ['deadline_extended', iso(releaseAt)],
      ['due_soon', iso(movedTo - DAY)],
      ['overdue', iso(movedTo)],
    ]);
    expect((await call(TEST_SELLER, 'GET', `/v9/orders/${orderId}`)).body).toMatchObject({ deliver_by: iso(movedTo), on_hold: false });
  });
});
