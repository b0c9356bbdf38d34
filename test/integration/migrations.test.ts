import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, query } from '../../src/db/client.ts';
import { MIGRATIONS_FOLDER, migrateDatabase } from '../../src/db/migrate.ts';
import { ADMIN_DATABASE_URL, databaseUrl } from '../support/env.ts';

const EXPECTED_TABLES = [
  'addresses',
  'brokerages',
  'carrier_events',
  'commands',
  'credentials',
  'delivery_issue_responses',
  'delivery_issues',
  'email_addresses',
  'event_feed',
  'event_feed_head',
  'events',
  'file_downloads',
  'file_links',
  'holds',
  'label_purchases',
  'offices',
  'orders',
  'phone_numbers',
  'seats',
  'shipment_barcodes',
  'shipment_events',
  'shipment_file_sets',
  'shipment_files',
  'shipments',
  'simulated_scans',
  'stored_files',
  'test_clock_events',
  'test_clocks',
  'ticket_groups',
  'tracking_claims',
  'tracking_events',
  'users',
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_endpoints',
];

const JOURNAL: { entries: unknown[] } = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8'));

async function tables(ex: Parameters<typeof query>[0]) {
  const rows = await query<{ table_name: string }>(
    ex,
    sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
  );
  return rows.map((r) => r.table_name);
}

describe('migrations', () => {
  const name = `fulfil_mig_${process.pid}_${Date.now()}`;
  const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} });
  afterAll(async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });

  it('apply on PostgreSQL from five processes at once without a race, and again as a no-op', async () => {
    await admin.unsafe(`create database ${name}`);
    const url = databaseUrl(name);
    const handles = await Promise.all(Array.from({ length: 5 }, () => openDatabase({ databaseUrl: url, maxConnections: 1 })));
    await Promise.all(handles.map((h) => migrateDatabase(h, url)));
    const applied = async () =>
      (await query<{ n: number }>(handles[0]!.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`))[0]!.n;
    // Five racing processes still record each migration once: exactly one row per journal entry.
    expect(JOURNAL.entries.length).toBeGreaterThan(0);
    expect(await applied()).toBe(JOURNAL.entries.length);
    await migrateDatabase(handles[0]!, url);
    expect(await applied()).toBe(JOURNAL.entries.length);
    expect(await tables(handles[0]!.db)).toEqual(EXPECTED_TABLES);
    await Promise.all(handles.map((h) => h.close()));
  });

  it('apply on embedded PGlite, and the schema enforces one live shipment per order', async () => {
    const database = await openDatabase({ pgliteDir: 'memory://' });
    await migrateDatabase(database);
    await migrateDatabase(database);
    expect(await tables(database.db)).toEqual(EXPECTED_TABLES);
    await database.db.execute(sql`insert into brokerages values (1, 'b')`);
    await database.db.execute(sql`insert into offices values (10, 1, 'o')`);
    await database.db
      .execute(sql`insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email)
      values (7, '1-7', 10, 1, 'tbd', 1, 'n', 'e@x.test')`);
    await database.db.execute(sql`insert into shipments (order_id, type, state, snapshot) values (7, 'TBD', 'pending', '{}')`);
    await expect(
      database.db.execute(sql`insert into shipments (order_id, type, state, snapshot) values (7, 'TBD', 'pending', '{}')`),
    ).rejects.toThrow();
    // A tombstone names its replacement: then the order takes a new live version, and still only one.
    await database.db.execute(sql`update shipments set replaced_by = 99 where order_id = 7`);
    await database.db.execute(sql`insert into shipments (id, order_id, type, state, snapshot) values (99, 7, 'TBD', 'pending', '{}')`);
    await expect(
      database.db.execute(sql`insert into shipments (order_id, type, state, snapshot) values (7, 'TBD', 'pending', '{}')`),
    ).rejects.toThrow();
    await database.close();
  });
});
