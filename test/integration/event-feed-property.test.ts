import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { appendEvent, BROKERAGE_CREDENTIALS, partiesOf, RING_ORDERS, ringFixture, type BrokerageId } from '../support/feed-world.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Property: readers of GET /v9/events, paging with `after` and long-polling with `wait` while
// several writers commit events for several brokerages (some holding a transaction open across
// others' commits), each receive their brokerage's events exactly once, in commit order. And a
// reader never gets on with another brokerage's cursor.

const BROKERAGES = [1, 2, 3, 4] as const;
const ALL_ORDERS = RING_ORDERS.flatMap((l) => l.orders);
const WRITERS = 3;
/** Each writer owns every third order, so its events' seqs never collide with another's. */
const ordersOf = (writer: number) => ALL_ORDERS.filter((_, i) => i % WRITERS === writer);

interface Committed {
  id: string;
  orderId: number;
  writer: number;
}

const step = fc.record({
  /** Events written in one transaction, in this order. */
  events: fc.array(fc.nat(ALL_ORDERS.length), { minLength: 1, maxLength: 3 }),
  /** How long the transaction stays open before its commit, letting others commit first. */
  holdMs: fc.constantFrom(0, 0, 5, 20),
});
const plan = fc.record({
  writers: fc.tuple(...Array.from({ length: WRITERS }, () => fc.array(step, { minLength: 1, maxLength: 4 }))),
  readers: fc.tuple(...BROKERAGES.map(() => fc.record({ limit: fc.integer({ min: 1, max: 4 }), wait: fc.constantFrom(0, 1) }))),
});

describe('event feed under concurrent writers (property)', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  const seqs = new Map<number, number>();

  beforeAll(async () => {
    t = await startTestService({ env: { RELAY_INTERVAL_MS: '50' } });
    await t.seed(ringFixture());
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  async function headCursor(b: BrokerageId): Promise<string> {
    let cursor: string | undefined;
    for (;;) {
      const r = await call(BROKERAGE_CREDENTIALS[b], 'GET', `/v9/events?limit=1000${cursor ? `&after=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      cursor = r.body.next_cursor as string;
      if (!r.body.has_more) return cursor;
    }
  }

  async function write(writer: number, steps: Array<{ events: number[]; holdMs: number }>, log: Committed[]): Promise<void> {
    const mine = ordersOf(writer);
    for (const s of steps) {
      const batch = s.events.map((n) => ({ id: `prop-${randomUUID()}`, orderId: mine[n % mine.length]!, writer }));
      await t.db.database.sql!.begin(async (tx) => {
        for (const e of batch) {
          const seq = (seqs.get(e.orderId) ?? 0) + 1;
          seqs.set(e.orderId, seq);
          await appendEvent(tx, e.orderId, seq, e.id);
        }
        if (s.holdMs > 0) await new Promise((r) => setTimeout(r, s.holdMs));
      });
      log.push(...batch);
    }
  }

  /** Follows one brokerage's feed from `cursor` until `enough()` says it has all; its last cursor. */
  async function follow(b: BrokerageId, cursor: string, opts: { limit: number; wait: number }, seen: string[], enough: () => boolean) {
    const deadline = Date.now() + 15_000;
    while (!enough()) {
      if (Date.now() > deadline) throw new Error(`brokerage ${b}: ${seen.length} events seen, timed out`);
      const r = await call(BROKERAGE_CREDENTIALS[b], 'GET', `/v9/events?after=${cursor}&limit=${opts.limit}&wait=${opts.wait}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      seen.push(...r.body.events.map((e: { id: string }) => e.id));
      cursor = r.body.next_cursor;
    }
    return cursor;
  }

  it('every reader sees its brokerage’s committed events exactly once, in commit order, and only with its own cursor', async () => {
    await fc.assert(
      fc.asyncProperty(plan, async ({ writers, readers }) => {
        const starts = await Promise.all(BROKERAGES.map(headCursor));
        const log: Committed[] = [];
        let written = false;
        const expectedOf = (b: BrokerageId) => log.filter((e) => partiesOf(e.orderId).includes(b));
        const seen = BROKERAGES.map(() => [] as string[]);
        const following = BROKERAGES.map((b, i) =>
          follow(b, starts[i]!, readers[i]!, seen[i]!, () => written && seen[i]!.length >= expectedOf(b).length),
        );
        await Promise.all(writers.map((steps, w) => write(w, steps, log)));
        written = true;
        const ends = await Promise.all(following);

        for (const [i, b] of BROKERAGES.entries()) {
          const expected = expectedOf(b);
          const got = seen[i]!;
          // Exactly the committed events: none missing, none twice, none of another brokerage.
          expect(new Set(got).size, `brokerage ${b} saw an event twice`).toBe(got.length);
          expect([...got].sort(), `brokerage ${b}`).toEqual(expected.map((e) => e.id).sort());
          // In commit order: each writer commits one transaction after another.
          for (let w = 0; w < WRITERS; w++)
            expect(
              got.filter((id) => expected.some((e) => e.id === id && e.writer === w)),
              `brokerage ${b}, writer ${w}`,
            ).toEqual(expected.filter((e) => e.writer === w).map((e) => e.id));
          // And nothing follows: the reader's last cursor is the end of its feed.
          const after = await call(BROKERAGE_CREDENTIALS[b], 'GET', `/v9/events?after=${ends[i]}`);
          expect(after.body).toMatchObject({ events: [], has_more: false });
          // Its neighbour's cursor is not its own.
          const foreign = await call(BROKERAGE_CREDENTIALS[b], 'GET', `/v9/events?after=${ends[(i + 1) % BROKERAGES.length]}`);
          expect(foreign.status, `brokerage ${b} with brokerage ${BROKERAGES[(i + 1) % BROKERAGES.length]}'s cursor`).toBe(400);
        }
      }),
      { numRuns: 6, endOnFailure: true },
    );
  }, 90_000);
});
