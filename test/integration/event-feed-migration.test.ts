import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../support/database.ts';
import { createSeededTestDatabase } from '../support/seeded-database.ts';
import { baseFixture, ORDERS } from '../support/fixtures.ts';

// drizzle/0005_event_feed.sql adds the history written before the feed existed: its statements
// after the tables, run against a database holding events as the previous version left them.

const MIGRATION = readFileSync(path.resolve(import.meta.dirname, '../../drizzle/0005_event_feed.sql'), 'utf8');
const BACKFILL = MIGRATION.split('--> statement-breakpoint')
  .map((s) => s.trim())
  .filter((s) => /^(INSERT|--|WITH|UPDATE)/.test(s));

describe('event feed migration', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createSeededTestDatabase(baseFixture());
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('gives every relayed event a position in write order, for seller and buyer; unrelayed ones wait for the relay', async () => {
    const sql = db.database.sql!;
    // The outbox as 0005 knew it (a copy of each message, kept with relayed_at once relayed) and the
    // feed as 0005 made it (a row per event and party), for this transaction only: temporary tables
    // of those names shadow the current ones (the feed rows, waiting or placed, drizzle/0022) for
    // the backfill's statements, and are dropped at the commit.
    let feed: { b: number; p: number; id: string }[] = [];
    await sql.begin(async (tx) => {
      await tx`create temporary table outbox (id bigserial primary key, event_id text not null, topic text not null, order_id bigint,
                 payload jsonb not null, created_at timestamptz not null default now(), relayed_at timestamptz) on commit drop`;
      await tx`create temporary table event_feed (brokerage_id bigint not null, position bigint not null, event_row_id bigint not null,
                 primary key (brokerage_id, position)) on commit drop`;
      const event = async (id: string, orderId: number, seq: number, relayed: boolean | 'pruned') => {
        await tx`insert into shipment_events (event_id, order_id, seq, kind, to_type, to_state, actor_brokerage_id, actor_role, command_id)
                 values (${id}, ${orderId}, ${seq}, 'created', 'TBD', 'pending', 1, 'seller', ${`c-${id}`})`;
        if (relayed !== 'pruned')
          await tx`insert into outbox (event_id, topic, order_id, payload, relayed_at)
                   values (${id}, 'shipment.transition', ${orderId}, '{}', case when ${relayed}::boolean then now() end)`;
      };
      await event('old-1', ORDERS.tbd, 1, 'pruned');
      await event('old-2', ORDERS.flash, 1, true);
      await event('old-3', ORDERS.tbd, 2, true);
      await event('waiting', ORDERS.tbd2, 1, false);
      // The state before 0005: the tables exist empty, the head row not yet.
      await tx`delete from event_feed_head`;

      expect(BACKFILL).toHaveLength(3);
      for (const statement of BACKFILL) await tx.unsafe(statement);
      feed = (await tx`select f.brokerage_id::int as b, f.position::int as p, e.event_id as id
                       from event_feed f join shipment_events e on e.id = f.event_row_id order by f.brokerage_id, f.position`) as unknown as typeof feed;
    });
    // The current feed was not touched.
    expect((await sql`select count(*)::int as n from event_feed`)[0]!.n).toBe(0);

    expect(feed.map((r) => [r.b, r.p, r.id])).toEqual([
      [1, 1, 'old-1'],
      [1, 2, 'old-2'],
      [1, 3, 'old-3'],
      [2, 1, 'old-1'],
      [2, 2, 'old-2'],
      [2, 3, 'old-3'],
    ]);
    expect((await sql`select position::int as p from event_feed_head`).map((r) => r.p)).toEqual([3]);
  });
});
