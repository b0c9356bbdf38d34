/**
 * drizzle/0020 carries a database made by the service before it forward: test/fixtures/from-0019
 * holds one (made by 7a3bb9e through its own API: completed, pending, joined LocalPickup and
 * canceled orders, four events still in the outbox), with what that version's API answered.
 * Here it is migrated to 0019 with the real migrator, loaded, migrated to the end, and served:
 * every read answers as it did, the events left in the outbox are relayed with the message the
 * version before would have sent, and each event still shows the shipment as it left it.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER, migrateDatabase } from '../../src/db/migrate.ts';
import { eventMessageOf } from '../../src/db/sql/append-event.ts';
import { apiClient } from '../support/api.ts';
import { openTestDatabase, type TestDatabase } from '../support/database.ts';
import { ADMIN_DATABASE_URL, databaseUrl } from '../support/env.ts';
import { BUYER, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { valueWithin } from '../support/value-within.ts';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/from-0019');
/** The key the fixture's credentials are sealed with (its generate.ts). */
const FIXTURE_SECRET_KEY = '0019'.repeat(16);
const PARTIES = { seller: SELLER, buyer: BUYER } as const;

interface Read {
  method: string;
  path: string;
  party: keyof typeof PARTIES;
  status: number;
  body: Record<string, unknown>;
}
const READS = (JSON.parse(readFileSync(path.join(FIXTURE, 'reads.json'), 'utf8')) as { reads: Read[] }).reads;
const OUTBOX = JSON.parse(readFileSync(path.join(FIXTURE, 'outbox.json'), 'utf8')) as {
  event_row_id: number;
  payload: Record<string, unknown>;
}[];

/** The migrations folder as it was at 0019: the same files, the journal cut after 0019. */
function migrationsThrough0019(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'fulfil-migrations-0019-'));
  cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalPath = path.join(dir, 'meta/_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { idx: number }[] };
  journal.entries = journal.entries.filter((e) => e.idx <= 19);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

/** The dump's statements, without psql's meta-commands. */
const DATA = readFileSync(path.join(FIXTURE, 'data.sql'), 'utf8')
  .split('\n')
  .filter((line) => !line.startsWith('\\'))
  .join('\n');

describe('migration 0020 on a database made by the version before', () => {
  const name = `fulfil_t_${process.pid}_m0020_${randomBytes(4).toString('hex')}`;
  const url = databaseUrl(name);
  let db: TestDatabase;
  let t: TestService;

  beforeAll(async () => {
    const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const old = migrationsThrough0019();
    const client = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrate(drizzle(client), { migrationsFolder: old });
      // The rows the migrations themselves insert (the feed's head) are in the dump too.
      const tables = await client`select tablename from pg_tables where schemaname = 'public'`;
      await client.unsafe(`truncate ${tables.map((r) => `public.${r.tablename}`).join(', ')}`);
      await client.unsafe(DATA);
    } finally {
      await client.end();
      rmSync(old, { recursive: true, force: true });
    }
    db = await openTestDatabase(name);
    await migrateDatabase(db.database, url);
  });
  afterAll(async () => {
    await t?.stop();
    await db?.drop();
  });

  it('keeps the events waiting in the outbox, in order, and builds the message the version before stored', async () => {
    const sql = db.database.sql!;
    const waiting = await sql`select event_row_id::int as id from event_feed where position is null order by event_row_id`;
    expect(waiting.map((r) => r.id)).toEqual(OUTBOX.map((o) => o.event_row_id));
    const built = await sql.unsafe(`select e.id::int as id, ${eventMessageOf('e')} as message from shipment_events e
      where e.id in (${OUTBOX.map((o) => Number(o.event_row_id)).join(', ')}) order by e.id`);
    // Events carry their mode and clock since (issue 55, test mode): every order of the dump is live.
    expect(built.map((r) => r.message)).toEqual(OUTBOX.map((o) => ({ ...o.payload, livemode: true, test_clock: null })));
  });

  it('turns the kept versions into the changes that made them, and keeps no copy', async () => {
    const sql = db.database.sql!;
    const columns = await sql`select column_name from information_schema.columns where table_name = 'shipment_events'`;
    expect(columns.map((c) => c.column_name)).not.toContain('shipment_as_left');
    // 700's completion and 705's cancellation each name what they changed; nothing else changed in place.
    const changed = await sql`select order_id::int as "orderId", kind, shipment_before as before from shipment_events
                              where shipment_before is not null order by id`;
    expect(changed.map((c) => [c.orderId, c.kind])).toEqual([
      [700, 'completed'],
      [705, 'canceled'],
      [704, 'completed'],
    ]);
    const completed = changed[0]!.before as Record<string, unknown>;
    expect(completed).toMatchObject({ state: 'pending', xMobileLink: null, deliveredAt: null });
    expect(changed[1]!.before).toMatchObject({ state: 'pending' });
  });

  it('answers every read of the version before as it did, and relays what was waiting', async () => {
    t = await startTestService({ db, env: { FULFIL_SECRET_KEY: FIXTURE_SECRET_KEY } });
    const call = apiClient(t.url);
    const sql = db.database.sql!;
    await valueWithin('the outbox drained', async () =>
      (await sql`select count(*)::int as n from event_feed where position is null`)[0]!.n === 0 ? true : undefined,
    );

    const live = new Set((await sql`select id::int as id from shipments where replaced_by is null`).map((r) => r.id as number));
    for (const r of READS) {
      if (r.path.startsWith('/v9/events')) continue; // pages moved: the feed has grown; compared by event below
      if (r.path.startsWith('/v9/shipments/') && !live.has(Number(r.path.split('/').pop()))) continue; // replaced since
      const res = await call(PARTIES[r.party], r.method, r.path);
      if (/^\/v9\/orders\/\d+\/events$/.test(r.path)) {
        // 706's update waited in the outbox when these were read: what was there is there still, first.
        const recorded = r.body.events as unknown[];
        expect({ path: r.path, status: res.status, events: res.body.events.slice(0, recorded.length) }).toEqual({
          path: r.path,
          status: r.status,
          events: recorded,
        });
        continue;
      }
      // Added to every read since the dump was made: the object's mode (test mode, issue 55); all of its orders are live.
      const since = r.path.startsWith('/v9/shipments/') ? { livemode: true } : {};
      expect({ path: r.path, party: r.party, status: res.status, body: res.body }).toEqual({
        path: r.path,
        party: r.party,
        status: r.status,
        body: { ...r.body, ...since },
      });
    }

    for (const party of ['seller', 'buyer'] as const) {
      const feed: Record<string, unknown>[] = [];
      let after: string | undefined;
      for (;;) {
        const q = new URLSearchParams({ limit: '100', ...(after ? { after } : {}) });
        const res = await call(PARTIES[party], 'GET', `/v9/events?${q}`);
        expect(res.status).toBe(200);
        feed.push(...(res.body.events as Record<string, unknown>[]));
        after = res.body.next_cursor;
        if (!res.body.has_more) break;
      }
      const byId = new Map(feed.map((e) => [e.id as string, e]));
      const recorded = READS.filter((r) => r.party === party && r.path.startsWith('/v9/events')).flatMap(
        (r) => r.body.events as Record<string, unknown>[],
      );
      expect(recorded.length).toBe(12);
      for (const e of recorded) expect(byId.get(e.id as string)).toEqual({ ...e, livemode: true, test_clock: null });
      // The four that waited are in the feed now, after the others, in their order.
      const ids = feed.map((e) => e.id);
      expect(ids.slice(12)).toEqual(OUTBOX.map((o) => o.payload.event_id));

      // 704 was completed after its update was written and before the migration: its update still
      // shows the pending shipment it made, its completion the delivered one.
      const of704 = feed.filter((e) => e.order_id === 704);
      expect(of704.map((e) => e.type)).toEqual(['shipment.created', 'shipment.updated', 'shipment.completed']);
      const shipmentOf = (e: Record<string, unknown>) => (e.data as { shipment: Record<string, unknown> }).shipment;
      expect(shipmentOf(of704[1]!)).toMatchObject({ state: 'pending' });
      expect(shipmentOf(of704[1]!).x_mobile_link ?? null).toBeNull();
      expect(shipmentOf(of704[2]!)).toMatchObject({ state: 'delivered', x_mobile_link: 'https://x.test/e' });
    }
  });
});
