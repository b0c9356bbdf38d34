import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pino from 'pino';
import { initialIssueSnapshot } from '../machines/index.ts';
import { DEFAULT_TIMEOUTS, openDatabase, type Database } from '../src/db/client.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { startAdvance } from '../src/sandbox/test-clocks.ts';
import { TimerQueue } from '../src/timers/deadline-timers.ts';
import { sweepTimers } from '../src/timers/sweep-timers.ts';
import { startTimerWorker } from '../src/timers/timer-worker.ts';
import { recreateBenchDatabase } from './bench-database.ts';

/**
 * A test clock's advance beside the wall clock (docs/BENCHMARKS.md, "Test clock advance"): `--orders`
 * orders (default 1,000) on one test clock, each with a due_soon and an overdue deadline timer and an
 * open delivery issue's escalation timer (3 timers an order), due across `--days` (default 30) of the
 * clock's time; the clock is advanced past all of them as the route does (startAdvance, then its job
 * on the timers' queue) with one timer worker running (`--concurrency`, default 32), and the run
 * measures the seconds from the advance request until the clock is `ready`. Beside it, in the same
 * run, the same number of live orders with the same timers all just past due, armed by the sweep and
 * fired by the same worker on the wall clock: seconds from the worker's start until the last fired.
 * `--rounds` repeats both (wall clock first). No HTTP, no relay: the events wait in the outbox.
 */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      orders: { type: 'string', default: '1000' },
      days: { type: 'string', default: '30' },
      concurrency: { type: 'string', default: '32' },
      rounds: { type: 'string', default: '1' },
    },
  });
  const orders = Number(values.orders);
  const days = Number(values.days);
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/fulfil_clocks_bench';
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `bench-clocks-${randomBytes(4).toString('hex')}`;
  await recreateBenchDatabase(url);
  const database = await openDatabase({ databaseUrl: url, maxConnections: 40, timeouts: { ...DEFAULT_TIMEOUTS, statementMs: 0 } });
  const producer = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const blocking = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new TimerQueue({ prefix, connection: producer });
  const worker = { current: undefined as undefined | { close(): Promise<void> } };
  const connections: Redis[] = [];
  const startWorker = () =>
    (worker.current = startTimerWorker({
      database,
      prefix,
      connection: () => connections[connections.push(blocking.duplicate()) - 1]!,
      concurrency: Number(values.concurrency),
      log: pino({ level: 'silent' }),
    }));
  const rows: string[] = [];
  try {
    await migrateDatabase(database, url);
    await database.rows(`insert into brokerages (id, name) values (1, 'Seller'), (2, 'Buyer')`, []);
    await database.rows(`insert into offices (id, brokerage_id, name) values (1, 1, 'Office')`, []);
    for (let round = 1; round <= Number(values.rounds); round++) {
      const base = round * 10_000_000;

      // The wall clock: every timer just past due, armed (as the sweep re-arms them), then fired.
      await fill(database, { firstId: base, orders, clockId: null, from: Date.now() - 60_000, spanMs: 50_000 });
      const armed = await sweepTimers(database, queue);
      note(`round ${round}: ${armed.armed} wall-clock timers armed; firing`);
      let t0 = performance.now();
      startWorker();
      const wallFired = await waitFor(database, base, orders, 3 * orders);
      const wallSeconds = (performance.now() - t0) / 1000;
      note(`round ${round}: ${wallFired} fired on the wall clock in ${wallSeconds.toFixed(2)} s; advancing the test clock`);

      // The test clock: the same timers spread over `days` of its time, all fired by one advance.
      const frozen = Date.parse('2031-03-01T12:00:00.000Z');
      const [clock] = await database.rows<{ id: string }>(
        `insert into test_clocks (brokerage_id, name, frozen_time) values (1, 'bench', $1::timestamptz) returning id`,
        [new Date(frozen).toISOString()],
      );
      const clockId = Number(clock!.id);
      const clockBase = base + 5_000_000;
      await fill(database, { firstId: clockBase, orders, clockId, from: frozen + 3_600_000, spanMs: (days - 1) * 86_400_000 });
      t0 = performance.now();
      const caller = { token: 'bench', kind: 'api' as const, livemode: false, brokerageId: 1, userId: null };
      await database.transaction((tx) =>
        startAdvance(tx, caller, clockId, { frozen_time: new Date(frozen + days * 86_400_000).toISOString() }),
      );
      await queue.armAdvance(clockId);
      note(`round ${round}: advance to ${days} days requested`);
      for (;;) {
        const [c] = await database.rows<{ status: string }>(`select status from test_clocks where id = $1::bigint`, [clockId]);
        if (c!.status === 'ready' || performance.now() - t0 > 600_000) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const clockSeconds = (performance.now() - t0) / 1000;
      await worker.current?.close();
      worker.current = undefined;
      const clockFired = await firedCount(database, clockBase, orders);
      rows.push(
        `| ${round} | ${armed.armed} armed, ${wallFired} fired | ${wallSeconds.toFixed(2)} | ${Math.round(wallFired / wallSeconds)} | ${clockFired} fired | ${clockSeconds.toFixed(2)} | ${Math.round(clockFired / clockSeconds)} | ${(clockSeconds / wallSeconds).toFixed(2)} × |`,
      );
    }
  } finally {
    await worker.current?.close().catch(() => undefined);
    await dropPrefix(producer, prefix);
    await queue.close();
    producer.disconnect();
    blocking.disconnect();
    for (const c of connections) c.disconnect();
    await database.close();
  }
  process.stdout.write(
    [
      `${orders} orders, 3 timers each (due_soon, overdue, a delivery issue's escalation); the clock advanced ${days} days; one worker, ${values.concurrency} timer runs at once`,
      '',
      '| round | wall clock: timers | seconds | timers/s | test clock: timers | seconds to ready | timers/s | advance ÷ wall clock |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
  return 0;
}

/**
 * `orders` open orders from `firstId`, live or on a clock, each with a reminder, a deadline and an
 * open delivery issue, their times spread over `spanMs` from `from`: the reminder first, then the
 * issue's response window, then the deadline (an hour apart).
 */
async function fill(
  database: Database,
  o: { firstId: number; orders: number; clockId: number | null; from: number; spanMs: number },
): Promise<void> {
  const step = o.spanMs / Math.max(1, o.orders);
  await database.rows(
    `insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email, state,
       deliver_by, due_soon_at, livemode, test_clock_id)
     select $1::bigint + g, 'b-' || ($1::bigint + g), 1, 2, 'tbd', 1, 'n', 'n@bench.test', case when g % 3 = 0 then 'accepted' else 'pending' end,
       to_timestamp(($2::float8 + (g - 1) * $3::float8) / 1000.0) + $6::interval,
       to_timestamp(($2::float8 + (g - 1) * $3::float8) / 1000.0),
       $5::bigint is null, $5::bigint
     from generate_series(1, $4::int) g`,
    [o.firstId, o.from, step, o.orders, o.clockId, o.clockId === null ? '2 seconds' : '2 hours'],
  );
  await database.rows(
    `insert into delivery_issues (order_id, state, snapshot, reason, opened_by_brokerage_id, command_id, opened_at, respond_by)
     select id, 'open', $3::text::jsonb, 'not_received', 2, 'bench-' || id, due_soon_at, due_soon_at + ($4::interval / 2)
     from orders where id > $1::bigint and id <= $1::bigint + $2::int`,
    [o.firstId, o.orders, JSON.stringify(initialIssueSnapshot()), o.clockId === null ? '2 seconds' : '2 hours'],
  );
  await database.rows(`analyze orders`, []);
  await database.rows(`analyze delivery_issues`, []);
}

const note = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

async function firedCount(database: Database, firstId: number, orders: number): Promise<number> {
  const [row] = await database.rows<{ n: number }>(
    `select (select count(*) from orders where id > $1::bigint and id <= $1::bigint + $2::int and due_soon_fired_at is not null)
       + (select count(*) from orders where id > $1::bigint and id <= $1::bigint + $2::int and overdue_fired_at is not null)
       + (select count(*) from delivery_issues where order_id > $1::bigint and order_id <= $1::bigint + $2::int and state = 'escalated') as n`,
    [firstId, orders],
  );
  return Number(row!.n);
}

/** Polls until `want` timers of the orders fired (at most 10 minutes); how many did. */
async function waitFor(database: Database, firstId: number, orders: number, want: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const n = await firedCount(database, firstId, orders);
    if (n >= want || performance.now() - t0 > 600_000) return n;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function dropPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 5000);
    cursor = next;
    if (batch.length) await redis.del(...batch);
  } while (cursor !== '0');
}
