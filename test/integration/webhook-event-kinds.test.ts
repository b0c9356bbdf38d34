import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KINDS, SHIPMENT_EVENT_TOPIC } from '@fulfil/contract';
import { MIGRATIONS_FOLDER } from '../../src/db/migrate.ts';
import { fanOutOver } from '../../src/webhooks/fan-out.ts';
import type { ChainHead } from '../../src/webhooks/webhook-queue.ts';
import { apiClient } from '../support/api.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

// An endpoint that receives every kind is stored as "every kind" (event_kinds null), not as the
// list of today's kinds, so a kind added to EVENT_KINDS later reaches it unchanged.

/** A kind the constant does not hold yet: what an endpoint created today meets after a release adds one. */
const LATER_KIND = 'a_kind_added_later';

const MIGRATION = readFileSync(path.join(MIGRATIONS_FOLDER, '0013_actor_types_and_all_event_kinds.sql'), 'utf8');
const TO_EVERY_KIND = MIGRATION.split('--> statement-breakpoint')
  .map((s) => s.replace(/^--.*$/gm, '').trim())
  .filter((s) => s.startsWith('UPDATE "webhook_endpoints"'));

describe('webhook endpoints and event kinds', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_CONCURRENCY: '0' } });
    await t.seed(baseFixture());
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const stored = async (id: number) =>
    (await t.db.database.sql!`select event_kinds from webhook_endpoints where id = ${id}`)[0]!.event_kinds as string[] | null;

  async function create(body: object): Promise<{ id: number; event_kinds: string[] }> {
    const res = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: 'http://127.0.0.1:9/hook', ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  /** The endpoints the relay's fan-out owes one event of each kind to, by kind; rolled back. */
  async function fannedOut(kinds: readonly string[]): Promise<Map<string, number[]>> {
    // The relay's batch statement runs the fan-out over the events it takes (their rows' event_id,
    // order_id, seq, kind and at, and their feed rows' parties); here over these.
    const fanOut = `with taken as (
        select r.*, f.brokerage_id as seller_brokerage_id, o.buyer_brokerage_id
        from jsonb_to_recordset($1::jsonb) as r(event_id text, order_id bigint, seq int, kind text, at timestamptz)
        join orders o on o.id = r.order_id join offices f on f.id = o.seller_office_id),
      followed as (${fanOutOver('taken')}) select out from followed`;
    const owed = new Map<string, number[]>(kinds.map((k) => [k, []]));
    const rollback = new Error('rollback');
    await t.db.database
      .transaction(async (tx) => {
        const messages = kinds.map((kind, i) => ({
          event_id: `kinds-${kind}`,
          topic: SHIPMENT_EVENT_TOPIC,
          order_id: ORDERS.tbd,
          seq: i + 1,
          kind,
          at: new Date().toISOString(),
        }));
        for (const { out: head } of await tx.rows<{ out: ChainHead }>(fanOut, [JSON.stringify(messages)])) {
          const [row] = await tx.rows<{ kind: string }>('select kind from webhook_deliveries where id = $1', [head.deliveryId]);
          owed.get(row!.kind)!.push(Number(head.endpointId));
        }
        throw rollback;
      })
      .catch((err: unknown) => {
        if (err !== rollback) throw err;
      });
    return owed;
  }

  it('every kind is stored as such, answered as the list of every kind, and fanned out every kind, a later one too', async () => {
    const omitted = await create({});
    const star = await create({ event_kinds: ['*'] });
    const named = await create({ event_kinds: [...EVENT_KINDS].reverse() });
    const some = await create({ event_kinds: ['created', 'completed'] });
    for (const every of [omitted, star, named]) {
      expect(await stored(every.id)).toBeNull();
      expect(every.event_kinds).toEqual([...EVENT_KINDS]);
    }
    expect(await stored(some.id)).toEqual(['created', 'completed']);
    expect(some.event_kinds).toEqual(['created', 'completed']);

    const owed = await fannedOut([...EVENT_KINDS, LATER_KIND]);
    for (const kind of [...EVENT_KINDS, LATER_KIND]) {
      const expected = [omitted.id, star.id, named.id, ...(kind === 'created' || kind === 'completed' ? [some.id] : [])];
      expect(
        owed.get(kind)!.sort((a, b) => a - b),
        kind,
      ).toEqual(expected.sort((a, b) => a - b));
    }

    // PATCH narrows an endpoint to a list and widens it back to every kind.
    const narrowed = await call(SELLER, 'PATCH', `/v9/webhook_endpoints/${omitted.id}`, { event_kinds: ['delivered'] });
    expect(narrowed.body.event_kinds).toEqual(['delivered']);
    expect(await stored(omitted.id)).toEqual(['delivered']);
    const widened = await call(SELLER, 'PATCH', `/v9/webhook_endpoints/${omitted.id}`, { event_kinds: ['*'] });
    expect(widened.body.event_kinds).toEqual([...EVENT_KINDS]);
    expect(await stored(omitted.id)).toBeNull();
    // An answer sent back unchanged keeps the endpoint as it was.
    await call(SELLER, 'PATCH', `/v9/webhook_endpoints/${omitted.id}`, { event_kinds: widened.body.event_kinds });
    expect(await stored(omitted.id)).toBeNull();
  });

  it('refuses "*" beside a kind, and an unknown kind by its place', async () => {
    for (const [kinds, field] of [
      [['*', 'created'], 'event_kinds'],
      [['created', 'shipped'], 'event_kinds.1'],
      [['*', '*'], 'event_kinds'],
    ] as const) {
      const res = await call(SELLER, 'POST', '/v9/webhook_endpoints', { url: 'http://127.0.0.1:9/hook', event_kinds: kinds });
      expect(res.status, JSON.stringify(kinds)).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ code: 'invalid_params', field });
    }
  });

  it('the migration takes a stored list of every kind, in any order, for every kind, and leaves shorter lists', async () => {
    expect(TO_EVERY_KIND).toHaveLength(1);
    const sql = t.db.database.sql!;
    const insert = async (kinds: string[]) =>
      Number(
        (
          await sql`insert into webhook_endpoints (brokerage_id, url, event_kinds, secret_ciphertext)
                    values (1, 'https://example.test/hook', ${kinds}, 'x') returning id`
        )[0]!.id,
      );
    // The kinds there were when the migration was written: it knows no others.
    const full = await insert(['created', 'updated', 'pickup_details', 'delivered', 'completed']);
    const shuffled = await insert(['completed', 'created', 'delivered', 'pickup_details', 'updated']);
    const short = await insert(['created', 'updated', 'pickup_details', 'delivered']);
    await sql.unsafe(TO_EVERY_KIND[0]!);
    expect(await stored(full)).toBeNull();
    expect(await stored(shuffled)).toBeNull();
    expect(await stored(short)).toEqual(['created', 'updated', 'pickup_details', 'delivered']);
  });
});
