import { randomBytes, randomUUID } from 'node:crypto';
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

/** `n` unrelayed events in the outbox, each message shaped and sized as a command's (about 400 bytes). */
async function writeOutbox(database: Database, n: number): Promise<void> {
  const sql = database.sql!;
  await sql`truncate outbox`;
  for (let from = 0; from < n; from += 5_000) {
    const rows = Array.from({ length: Math.min(5_000, n - from) }, (_, i) => {
      const eventId = randomUUID();
      const message = {
        event_id: eventId,
        topic: 'shipment.transition',
        order_id: 1_000_000 + from + i,
        seq: 2,
        kind: 'updated',
        shipment_id: 40_000_000 + from + i,
        new_shipment_id: 50_000_000 + from + i,
        from_type: 'TBD',
        from_state: 'pending',
        to_type: 'XMobileLink',
        to_state: 'pending',
        actor: { type: 'party', role: 'seller', brokerage_id: 1, user_id: 1234 },
        command_id: `c-${randomUUID()}`,
        at: new Date().toISOString(),
      };
      return { event_id: eventId, topic: message.topic, order_id: message.order_id, payload: JSON.stringify(message) };
    });
    await sql`insert into outbox ${sql(rows)}`;
  }
}
