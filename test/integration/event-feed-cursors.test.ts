import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { FeedCursors } from '../../src/read/feed-cursor.ts';
import { apiClient } from '../support/api.ts';
import { appendEvent, FOURTH, ringFixture } from '../support/feed-world.ts';
import { BUYER, SELLER, SELLER_USER, STRANGER } from '../support/fixtures.ts';
import { startTestService, TEST_SECRET_KEY, type TestService } from '../support/service.ts';
import { valueWithin } from '../support/value-within.ts';

// GET /v9/events cursors, against the real service: only cursors the feed gave to this brokerage
// are taken, and none tells anything but "here" to whoever holds it.

type Cred = typeof SELLER;

function integerEncodings(n: number): Buffer[] {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  const l = Buffer.alloc(8);
  l.writeBigUInt64LE(BigInt(n));
  return [b, l, b.subarray(4), l.subarray(0, 4)];
}

/** Where the feed stands when the file starts: far from small numbers, so no cursor holds one of its positions by chance. */
const HEAD_AT_START = 987_654_321;

const refusedAfter = { errors: [{ code: 'invalid_params', message: expect.any(String), field: 'after' }] };

describe('event feed cursors', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  const seqs = new Map<number, number>();

  /** Appends an event to `orderId` and waits until the relay put it in the feed. */
  async function event(orderId: number): Promise<string> {
    const id = `cursor-${randomUUID()}`;
    const seq = (seqs.get(orderId) ?? 0) + 1;
    seqs.set(orderId, seq);
    await appendEvent(t.db.database.sql!, orderId, seq, id);
    await valueWithin('the event relayed', async () => {
      // Relayed: its outbox row is gone, and its feed rows are written.
      const [row] = await t.db.database.sql!`
        select exists (select 1 from event_feed f where f.event_row_id = e.id and f.position is not null) as relayed
        from shipment_events e where e.event_id = ${id}`;
      return row?.relayed ? true : undefined;
    });
    return id;
  }

  async function drain(cred: Cred, after?: string): Promise<{ ids: string[]; cursor: string }> {
    const ids: string[] = [];
    let cursor = after;
    for (;;) {
      const r = await call(cred, 'GET', `/v9/events?limit=1000${cursor ? `&after=${cursor}` : ''}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      ids.push(...r.body.events.map((e: { id: string }) => e.id));
      cursor = r.body.next_cursor;
      if (!r.body.has_more) return { ids, cursor: cursor! };
    }
  }

  const feedHead = async () => Number((await t.db.database.sql!`select position from event_feed_head`)[0]!.position);

  beforeAll(async () => {
    t = await startTestService({ env: { RELAY_INTERVAL_MS: '50' } });
    await t.seed(ringFixture());
    await t.db.database.sql!`update event_feed_head set position = ${HEAD_AT_START}`;
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('a cursor past the head of the feed is refused, so the events that later take those positions are not skipped', async () => {
    await event(900);
    const { cursor } = await drain(SELLER);
    const head = await feedHead();
    const ahead = Buffer.from(`fe1:${head + 2}`).toString('base64url');
    const r = await call(SELLER, 'GET', `/v9/events?after=${ahead}`);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body).toEqual(refusedAfter);
    // Such a cursor is of the feed's earlier form: the answer says what to do.
    expect(r.body.errors[0].message).toMatch(/earlier form.*without after/);
    // Even a cursor the service itself made does not pass the end (a database put back to an earlier state).
    const cursors = FeedCursors.from(SecretBox.fromKey(TEST_SECRET_KEY));
    const past = await call(SELLER, 'GET', `/v9/events?after=${cursors.issue(1, head + 2)}&wait=1`);
    expect(past.status, JSON.stringify(past.body)).toBe(400);
    expect(past.body).toEqual(refusedAfter);
    expect(await call(SELLER, 'GET', `/v9/events?after=${cursors.issue(1, head)}`)).toMatchObject({
      status: 200,
      body: { events: [], next_cursor: cursor },
    });

    // The two events that take those positions reach the reader that kept the feed's own cursor.
    const next = [await event(901), await event(902)];
    expect(await feedHead()).toBe(head + 2);
    expect((await drain(SELLER, cursor)).ids).toEqual(next);
  });

  it("a cursor tells nothing of other brokerages' events: each brokerage's cursor for the same place is its own", async () => {
    await event(900);
    const seller1 = await drain(SELLER);
    const buyer1 = await drain(BUYER);
    // Other brokerages' events in between (the buyer's brokerage takes part in the last).
    for (let i = 0; i < 5; i++) await event(920);
    await event(910);
    await event(901);
    const seller2 = await drain(SELLER, seller1.cursor);
    const buyer2 = await drain(BUYER, buyer1.cursor);
    expect([seller2.ids.length, buyer2.ids.length]).toEqual([1, 2]);
    const head = await feedHead();
    // Neither place is in any cursor, as text or as a 4- or 8-byte integer of either byte order.
    for (const cursor of [seller1.cursor, seller2.cursor, buyer1.cursor, buyer2.cursor]) {
      const bytes = Buffer.from(cursor, 'base64url');
      for (const position of [head, head - 7]) {
        expect(bytes.toString('latin1'), `${cursor} shows ${position}`).not.toContain(String(position));
        for (const encoding of integerEncodings(position)) expect(bytes.includes(encoding), `${cursor} holds ${position}`).toBe(false);
      }
    }
    // Seller and buyer stand at the same place of the feed, each with a cursor of its own.
    expect(seller2.cursor).not.toBe(buyer2.cursor);
    expect(seller1.cursor).not.toBe(buyer1.cursor);
    // The same place gives the same cursor (a page past the end hands back the one given).
    expect((await drain(SELLER_USER, seller1.cursor)).cursor).toBe(seller2.cursor);
  });

  it("another brokerage's cursor, or one altered, is 400 in the error shape", async () => {
    await event(900);
    const { cursor: buyers } = await drain(BUYER);
    const { cursor: sellers } = await drain(SELLER);
    for (const [cred, cursor] of [
      [STRANGER, buyers],
      [SELLER, buyers],
      [BUYER, sellers],
      [FOURTH, sellers],
    ] as const) {
      const r = await call(cred, 'GET', `/v9/events?after=${cursor}`);
      expect(r.status, `${cred.token} with ${cursor}`).toBe(400);
      expect(r.body).toEqual(refusedAfter);
    }
    const head = await feedHead();
    const otherDeployment = FeedCursors.from(SecretBox.fromKey(randomBytes(32)));
    const flip = (c: string, at: number) => c.slice(0, at) + (c[at] === 'A' ? 'B' : 'A') + c.slice(at + 1);
    for (const cursor of [
      flip(sellers, sellers.length - 1),
      flip(sellers, 0),
      flip(sellers, 5),
      sellers.slice(0, -2),
      `${sellers}AA`,
      otherDeployment.issue(1, head),
    ]) {
      const r = await call(SELLER, 'GET', `/v9/events?after=${cursor}`);
      expect(r.status, cursor).toBe(400);
      expect(r.body).toEqual(refusedAfter);
    }
  });
});
