import type { RedisConnection } from '@fulfil/client/transport';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { blockingConnection } from '@fulfil/client/transport';
import { startWorkers, type WorkerPool } from '../../workers/pool.ts';
import { registry } from '../../workers/index.ts';
import { apiClient, BUYER_PICKUP_BODY, SELLER_PICKUP_BODY } from '../support/api.ts';
import { baseFixture, BUYER, ORDERS, SELLER } from '../support/fixtures.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { commandShardPlace, inventoryPlace } from '@fulfil/contract';

/**
 * The command path stays short: every statement each command sends to Postgres is counted, on
 * the API side (a credential not yet cached; a synchronous call records no command row there:
 * D-145) and on the worker side (its one transaction), and so is
 * every round trip: statements issued in the same tick leave in one write (postgres.js flushes
 * on setImmediate) and are answered together, so they count as one. A command that grows past
 * either budget fails here. The API process runs without workers; the worker pool runs alone,
 * without the relay and housekeeping, so nothing else is counted. On the Redis side, each answer
 * must go out on the connection its job is finished on, so that both leave in one write.
 */
const BUDGET = { api: 1, total: 9 };
// The first call of a credential reads it (API: 1 trip, else none); a statement new to the worker's
// connection costs one more (the buyer pickup below): warm, every command is at most 4 trips.
const TRIP_BUDGET = { api: 1, total: 4 };
// [BEGIN + the command's lock and row + the handler's lock and live read (+ a pickup's new contact rows)], [a new
// e-mail row], [the write that stores the answer + COMMIT].
const WORKER_TRIPS: Record<string, number> = {
  accept: 2,
  'accept (XSeats, new e-mail row)': 3,
  'update: mobile transfer (new e-mail row)': 3,
  'update: mobile transfer': 2,
  'update: seller pickup': 2,
  'update: buyer pickup (join, delivers)': 2,
  complete: 2,
};

/** Statements and round trips as one side sends them: a new trip starts in a tick with none yet. */
function sent() {
  const texts: string[] = [];
  let trips = 0;
  let open = false;
  return {
    texts,
    get trips() {
      return trips;
    },
    push(text: string) {
      texts.push(text);
      if (open) return;
      open = true;
      trips++;
      setImmediate(() => (open = false));
    },
    reset() {
      texts.length = 0;
      trips = 0;
    },
  };
}
// BEGIN, the command's lock, its row, the order's lock, [live read], [new contact rows], the write
// that also stores the answer (and, for a synchronous call, records the command: D-145), COMMIT.
const WORKER_BUDGET: Record<string, number> = {
  accept: 6,
  'accept (XSeats, new e-mail row)': 7,
  'update: mobile transfer (new e-mail row)': 8,
  'update: mobile transfer': 7,
  'update: seller pickup': 8,
  'update: buyer pickup (join, delivers)': 8,
  complete: 7,
};

const WARM_PICKUP = 705;

describe('statements per command', () => {
  let t: TestService;
  let workerDb: Database;
  let pool: WorkerPool;
  const connections: RedisConnection[] = [];
  const published: RedisConnection[] = [];
  const apiSent = sent();
  const workerSent = sent();
  const api = apiSent.texts;
  const worker = workerSent.texts;
  let call: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    t = await startTestService({ roles: { api: true, worker: false }, hooks: { onStatement: (s) => apiSent.push(s) } });
    const fixture = baseFixture();
    // A second local-pickup order, for the warm-up's join.
    fixture.orders.push({ ...fixture.orders.find((o) => o.id === ORDERS.localPickup)!, id: WARM_PICKUP, oid: `1001-${WARM_PICKUP}` });
    await t.seed(fixture);
    workerDb = await openDatabase({ databaseUrl: t.db.url, maxConnections: 1, onStatement: (s) => workerSent.push(s) });
    pool = startWorkers({
      database: workerDb,
      registry: registry(),
      places: [commandShardPlace(t.prefix, 0, 1), inventoryPlace(t.prefix)],
      connection: () => {
        const c = blockingConnection(TEST_REDIS_URL);
        connections.push(c);
        // Which connection each answer is published on (D-095: the one its job came on).
        const publish = c.publish.bind(c);
        c.publish = ((channel: string, message: string) => (published.push(c), publish(channel, message))) as typeof c.publish;
        return c;
      },
      concurrency: 2,
      log: pino({ level: 'silent' }),
    });
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await pool?.close(5_000);
    for (const c of connections) c.disconnect();
    await workerDb?.close();
    await t?.stop();
  });

  const counted: Array<{ command: string; api: number; worker: number; apiTrips: number; workerTrips: number }> = [];
  async function measure(command: string, send: () => Promise<{ status: number; body: any }>) {
    apiSent.reset();
    workerSent.reset();
    const res = await send();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    counted.push({ command, api: api.length, worker: worker.length, apiTrips: apiSent.trips, workerTrips: workerSent.trips });
    expect(apiSent.trips, `${command}, API round trips:\n${api.join('\n')}`).toBeLessThanOrEqual(TRIP_BUDGET.api);
    expect(workerSent.trips, `${command}, worker round trips:\n${worker.join('\n')}`).toBeLessThanOrEqual(WORKER_TRIPS[command]!);
    expect(apiSent.trips + workerSent.trips).toBeLessThanOrEqual(TRIP_BUDGET.total);
    expect(api.length, `${command}, API side:\n${api.join('\n')}`).toBeLessThanOrEqual(BUDGET.api);
    expect(worker.length, `${command}, worker side:\n${worker.join('\n')}`).toBeLessThanOrEqual(WORKER_BUDGET[command]!);
    expect(api.length + worker.length).toBeLessThanOrEqual(BUDGET.total);
    // The transaction is really there: the counts include its BEGIN and COMMIT.
    expect(worker[0]).toMatch(/^begin/i);
    expect(worker.at(-1)).toMatch(/^commit/i);
    return res.body;
  }

  it('accept, each kind of update and complete stay within their budgets', async () => {
    // Warm: a new postgres.js connection first reads the server's array types, once.
    const warm = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd2}/accept`, { reviewer_id: 100 });
    expect(warm.status).toBe(200);
    // One worker connection, warmed with each statement: a statement a connection meets for the
    // first time costs one more round trip (Parse and Describe before it can run).
    const warmed = await call(SELLER, 'PUT', `/v9/shipments/${warm.body.shipments[0].id}`, { mobile_transfer_type: 'XMobile' });
    await call(SELLER, 'PUT', `/v9/shipments/${warmed.body.id}/complete`, { x_mobile_link: 'https://claim.example.test/x' });
    const warmPickup = await call(SELLER, 'POST', `/v9/orders/${WARM_PICKUP}/accept`, { reviewer_id: 100 });
    const warmSeller = await call(SELLER, 'PUT', `/v9/shipments/${warmPickup.body.shipments[0].id}`, SELLER_PICKUP_BODY);
    expect((await call(BUYER, 'PUT', `/v9/shipments/${warmSeller.body.id}`, BUYER_PICKUP_BODY)).status).toBe(200);
    const tbd = await measure('accept', () => call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 }));
    const xmobile = await measure('update: mobile transfer (new e-mail row)', () =>
      call(SELLER, 'PUT', `/v9/shipments/${tbd.shipments[0].id}`, { mobile_transfer_type: 'XMobile' }),
    );
    const link = await measure('update: mobile transfer', () =>
      call(SELLER, 'PUT', `/v9/shipments/${xmobile.id}`, { mobile_transfer_type: 'XMobileLink' }),
    );
    await measure('complete', () =>
      call(SELLER, 'PUT', `/v9/shipments/${link.id}/complete`, { x_mobile_link: 'https://claim.example.test/x' }),
    );

    await measure('accept (XSeats, new e-mail row)', () => call(SELLER, 'POST', `/v9/orders/${ORDERS.flash}/accept`, { reviewer_id: 100 }));

    const pickup = await measure('accept', () => call(SELLER, 'POST', `/v9/orders/${ORDERS.localPickup}/accept`, { reviewer_id: 100 }));
    const seller = await measure('update: seller pickup', () =>
      call(SELLER, 'PUT', `/v9/shipments/${pickup.shipments[0].id}`, SELLER_PICKUP_BODY),
    );
    await measure('update: buyer pickup (join, delivers)', () => call(BUYER, 'PUT', `/v9/shipments/${seller.id}`, BUYER_PICKUP_BODY));
    expect(counted).toHaveLength(8);
    // Every answer went out on a connection a BullMQ worker finishes its jobs on, in the same
    // turn, so the publish and the finish leave in one write (ending-redis.ts).
    const workerConnections = new Set(pool.workers.map((w) => w.opts.connection));
    expect(published.length).toBeGreaterThanOrEqual(counted.length);
    for (const c of published) expect(workerConnections.has(c)).toBe(true);
    if (process.env.SHOW_BUDGET) console.table(counted);
  });
});
