import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pino from 'pino';
import { DEFAULT_TIMEOUTS, openDatabase, type Database } from '../src/db/client.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { TimerQueue } from '../src/timers/deadline-timers.ts';
import { sweepTimers } from '../src/timers/sweep-timers.ts';
import { startTimerWorker } from '../src/timers/timer-worker.ts';
import { recreateBenchDatabase } from './bench-database.ts';

/**
 * The deadline timers at scale (docs/BENCHMARKS.md, "Deadline timers"): `--orders` open orders
 * (default 100,000) with a deadline days ahead, so two timers each. Measures what Redis holds for
 * them (MEMORY USAGE of every key of the timers' queue), the re-arming sweep's time on an empty
 * Redis (arms every timer, as after a FLUSHALL) and on a full one (finds nothing missing), and
 * then, with those armed, `--due` deadlines (default 10,000) falling due at `--rate` per second
 * (default 1,000) fired by one worker process: how late each event was written after its time.
 * Postgres and Redis as configured (BENCH_DATABASE_URL, BENCH_REDIS_URL); no HTTP, no relay.
 */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      orders: { type: 'string', default: '100000' },
      due: { type: 'string', default: '10000' },
      rate: { type: 'string', default: '1000' },
      concurrency: { type: 'string', default: '32' },
      lead: { type: 'string', default: '10000' },
    },
  });
  const orders = Number(values.orders);
  const due = Number(values.due);
  const rate = Number(values.rate);
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/fulfil_timers_bench';
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `bench-timers-${randomBytes(4).toString('hex')}`;
  await recreateBenchDatabase(url);
  const database = await openDatabase({ databaseUrl: url, maxConnections: 40, timeouts: { ...DEFAULT_TIMEOUTS, statementMs: 0 } });
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const producer = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new TimerQueue({ prefix, connection: producer });
  const out: string[] = [];
  try {
    await migrateDatabase(database, url);
    await fill(database, orders);
    out.push(`open orders with a deadline: ${orders} (timers: ${2 * orders})`);

    let t0 = performance.now();
    const empty = await sweepTimers(database, queue);
    const emptySeconds = (performance.now() - t0) / 1000;
    t0 = performance.now();
    const full = await sweepTimers(database, queue);
    const fullSeconds = (performance.now() - t0) / 1000;
    const memory = await timerMemory(redis, prefix);
    out.push(
      '',
      '| sweep | timers checked | armed | seconds | timers/s |',
      '|---|---|---|---|---|',
      `| empty Redis (after a FLUSHALL) | ${empty.checked} | ${empty.armed} | ${emptySeconds.toFixed(1)} | ${Math.round(empty.checked / emptySeconds)} |`,
      `| every timer armed | ${full.checked} | ${full.armed} | ${fullSeconds.toFixed(1)} | ${Math.round(full.checked / fullSeconds)} |`,
      '',
      `Redis for ${empty.armed} armed timers: ${(memory.bytes / 1024 / 1024).toFixed(1)} MiB in ${memory.keys} keys, ${Math.round(memory.bytes / Math.max(1, empty.armed))} bytes per timer`,
    );

    // Deadlines falling due at `rate` per second, starting after `--lead` ms (time to arm them
    // first); their reminders long fired.
    const start = Date.now() + Number(values.lead);
    await database.rows(
      `insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email,
         state, deliver_by, due_soon_at, due_soon_fired_at)
       select 10000000 + g, '9-' || g, 1, 2, 'tbd', 1, 'n', 'n@bench.test', 'pending',
         to_timestamp(($1::bigint + (g - 1) * 1000 / $2::int) / 1000.0), now() - interval '1 day', now()
       from generate_series(1, $3::int) g`,
      [start, rate, due],
    );
    await sweepTimers(database, queue);
    const armedAt = Date.now();
    const blocking = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const worker = startTimerWorker({
      database,
      prefix,
      connection: () => blocking,
      concurrency: Number(values.concurrency),
      log: pino({ level: 'silent' }),
    });
    const last = start + ((due - 1) * 1000) / rate;
    for (;;) {
      const [row] = await database.rows<{ n: number }>(
        `select count(*)::int as n from orders where id > 10000000 and overdue_fired_at is not null`,
        [],
      );
      if (row!.n >= due || Date.now() > last + 120_000) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    await worker.close();
    blocking.disconnect();
    const [late] = await database.rows<{
      n: number;
      p50: number | null;
      p95: number | null;
      p99: number | null;
      max: number | null;
      within: number;
    }>(
      `select count(*)::int as n,
         percentile_cont(0.5) within group (order by ms) as p50, percentile_cont(0.95) within group (order by ms) as p95,
         percentile_cont(0.99) within group (order by ms) as p99, max(ms) as max, count(*) filter (where ms <= 1000)::int as within
       from (select extract(epoch from (e.at - (e.details->>'due_at')::timestamptz)) * 1000 as ms
             from shipment_events e where e.order_id > 10000000 and e.kind = 'overdue') x`,
      [],
    );
    out.push(
      '',
      `${due} deadlines due at ${rate}/s over ${((last - start) / 1000).toFixed(0)} s (armed ${((start - armedAt) / 1000).toFixed(1)} s before the first), one process, ${values.concurrency} timer runs at once:`,
      '',
      '| events | lateness p50 | p95 | p99 | max | within 1 s |',
      '|---|---|---|---|---|---|',
      `| ${late!.n} of ${due} | ${ms(late!.p50)} | ${ms(late!.p95)} | ${ms(late!.p99)} | ${ms(late!.max)} | ${((100 * late!.within) / Math.max(1, late!.n)).toFixed(1)} % |`,
    );
  } finally {
    await dropPrefix(redis, prefix);
    await queue.close();
    producer.disconnect();
    redis.disconnect();
    await database.close();
  }
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

const ms = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${Math.round(Number(v))} ms`);

/** Open orders with a deadline 2 to 30 days ahead, their reminder a day before it. */
async function fill(database: Database, orders: number): Promise<void> {
  await database.rows(`insert into brokerages (id, name) values (1, 'Seller'), (2, 'Buyer')`, []);
  await database.rows(`insert into offices (id, brokerage_id, name) values (1, 1, 'Office')`, []);
  await database.rows(
    `insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email, state,
       deliver_by, due_soon_at)
     select g, '1-' || g, 1, 2, 'tbd', 1, 'n', 'n@bench.test', case when g % 3 = 0 then 'accepted' else 'pending' end,
       now() + interval '2 days' + (g % 40320) * interval '1 minute', now() + interval '1 day' + (g % 40320) * interval '1 minute'
     from generate_series(1, $1::int) g`,
    [orders],
  );
  await database.rows(`analyze orders`, []);
}

async function timerMemory(redis: Redis, prefix: string): Promise<{ keys: number; bytes: number }> {
  let cursor = '0';
  let keys = 0;
  let bytes = 0;
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 5000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const k of batch) pipeline.memory('USAGE', k);
    for (const [, v] of (await pipeline.exec()) ?? []) bytes += Number(v ?? 0);
    keys += batch.length;
  } while (cursor !== '0');
  return { keys, bytes };
}

async function dropPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 5000);
    cursor = next;
    if (batch.length) await redis.del(...batch);
  } while (cursor !== '0');
}
