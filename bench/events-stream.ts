import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pino from 'pino';
import { eventsStreamKey } from '@fulfil/contract';
import { openDatabase, type Database } from '../src/db/client.ts';
import { OutboxRelay } from '../src/events/outbox-relay.ts';
import { recreateBenchDatabase } from './bench-database.ts';
import { migrateDatabase } from '../src/db/migrate.ts';

/**
 * What Redis holds of events when no one reads them: `--events` events (default 100,000; one per
 * command, as the commands write them) go through the outbox relay with the events stream off
 * (the default) and on (trimmed to `--maxlen`, default EVENTS_STREAM_MAXLEN's 100,000). Reports
 * the stream's length and MEMORY USAGE, the keys under the run's prefix, and the relay's time.
 * Relays the outbox directly (no HTTP, no command), so it measures the event channel alone.
 */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { events: { type: 'string', default: '100000' }, maxlen: { type: 'string', default: '100000' } },
  });
  const events = Number(values.events);
  const maxLen = Number(values.maxlen);
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/fulfil_events_bench';
  const redis = new Redis(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  await recreateBenchDatabase(url);
  const database = await openDatabase({ databaseUrl: url, maxConnections: 2 });
  const rows: string[] = [
    `| stream | events | relay s | XLEN | MEMORY USAGE of the stream | bytes per kept event | keys under the prefix |`,
    `|---|---|---|---|---|---|---|`,
  ];
  try {
    await migrateDatabase(database, url);
    for (const stream of [undefined, { maxLen }]) {
      const prefix = `bench-events-${randomBytes(4).toString('hex')}`;
      try {
        await writeOutbox(database, events);
        const relay = new OutboxRelay({ database, connection: redis, prefix, log: pino({ level: 'silent' }), stream });
        const t0 = performance.now();
        while ((await relay.relayOnce()) > 0);
        const seconds = (performance.now() - t0) / 1000;
        const key = eventsStreamKey(prefix);
        const length = await redis.xlen(key);
        const usage = Number((await redis.memory('USAGE', key)) ?? 0);
        const keys = (await redis.keys(`${prefix}*`)).length;
        rows.push(
          `| ${stream ? `on, MAXLEN ~ ${maxLen}` : 'off (default)'} | ${events} | ${seconds.toFixed(1)} | ${length} | ${(usage / 1024 / 1024).toFixed(1)} MiB | ${length ? Math.round(usage / length) : '–'} | ${keys} |`,
        );
      } finally {
        await redis.del(eventsStreamKey(prefix));
      }
    }
  } finally {
    await database.close();
    redis.disconnect();
  }
  process.stdout.write(`${rows.join('\n')}\n`);
  return 0;
}

/**
 * `n` events waiting for the relay, each shaped and sized as a command's: an event row (the
 * relay builds its message from it, about 400 bytes) and its feed row without a position.
 */
async function writeOutbox(database: Database, n: number): Promise<void> {
  const sql = database.sql!;
  await sql`truncate event_feed, shipment_events`;
  await sql`update event_feed_head set position = 0`;
  for (let from = 0; from < n; from += 5_000) {
    const count = Math.min(5_000, n - from);
    await sql`
      with e as (
        insert into shipment_events (event_id, order_id, seq, kind, shipment_id, new_shipment_id, from_type, from_state,
          to_type, to_state, actor_type, actor_brokerage_id, actor_user_id, actor_role, command_id)
        select gen_random_uuid()::text, 1000000 + i, 2, 'updated', 40000000 + i, 50000000 + i, 'TBD', 'pending',
          'XMobileLink', 'pending', 'party', 1, 1234, 'seller', 'c-' || gen_random_uuid()
        from generate_series(${from}::int, ${from + count - 1}::int) i
        returning id)
      insert into event_feed (event_row_id, seller_brokerage_id, buyer_brokerage_id) select id, 1, 2 from e order by id`;
  }
}
