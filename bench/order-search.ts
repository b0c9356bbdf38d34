import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { openDatabase, query, type Database } from '../src/db/client.ts';
import { filterConditions } from '../src/ops/order-filters.ts';
import { DEFAULT_PAGE_SIZE, PAGING_PARAMS, searchOrders } from '../src/ops/order-search.ts';
import { loadBenchDatabase } from './bench-database.ts';

/**
 * The operators' order search on 1,000,000 orders (20 seller brokerages of 5 offices each, 20
 * buyer brokerages, a year of creation times; 60 % accepted or completed with a live shipment
 * of a skewed type mix; 200,000 finished commands and a few unfinished or failed ones), loaded
 * in SQL into a fresh database. For each filter, the first page and the last page (the oldest
 * orders, reached by its keyset cursor), each the median of repeated runs of searchOrders, the
 * function behind /ops/orders and `fulfil orders list`.
 */
const ORDERS = 1_000_000;

const FILTERS: Array<[string, Record<string, string>]> = [
  ['none', {}],
  ['state=completed', { state: 'completed' }],
  ['shipment_type=TBD (half)', { shipment_type: 'TBD' }],
  ['shipment_type=XMobileLink (1 %)', { shipment_type: 'XMobileLink' }],
  ['seller_brokerage=5', { seller_brokerage: '5' }],
  ['seller_office=42', { seller_office: '42' }],
  ['buyer_brokerage=25', { buyer_brokerage: '25' }],
  ['created in one week', { created_after: '2026-03-01', created_before: '2026-03-08' }],
  ['updated in one day', { updated_after: '2026-03-01', updated_before: '2026-03-02' }],
  ['command=failed', { command: 'failed' }],
  ['command=unfinished', { command: 'unfinished' }],
  ['state=accepted, seller_office=42', { state: 'accepted', seller_office: '42' }],
  ['shipment_type=XMobileLink, buyer_brokerage=25', { shipment_type: 'XMobileLink', buyer_brokerage: '25' }],
];

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { reuse: { type: 'boolean' }, runs: { type: 'string', default: '15' } } });
  const runs = Number(values.runs);
  const url = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/fulfil_bench_search';
  const log = (s: string) => process.stderr.write(`${s}\n`);
  if (!values.reuse) {
    await loadBenchDatabase(url, `${ORDERS} orders`, load);
  }
  const database = await openDatabase({ databaseUrl: url, maxConnections: 1 });
  try {
    const out = [
      `order search, ${ORDERS} orders, page of ${DEFAULT_PAGE_SIZE}, median of ${runs} runs (ms)`,
      '',
      '| filter | matches | first page | last page |',
      '|---|---:|---:|---:|',
    ];
    for (const [name, params] of FILTERS) {
      const matches = await count(database, params);
      const first = await median(runs, () => searchOrders(database.db, params));
      const after = await lastPageCursor(database, params);
      const last = after === undefined ? first : await median(runs, () => searchOrders(database.db, { ...params, after }));
      const lastPage = after === undefined ? undefined : await searchOrders(database.db, { ...params, after });
      if (lastPage?.next !== undefined) throw new Error(`${name}: the last page says there is more`);
      out.push(`| ${name} | ${matches} | ${first.toFixed(2)} | ${last.toFixed(2)} |`);
      log(out.at(-1)!);
    }
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await database.close();
  }
  return 0;
}

async function median(runs: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

function where(params: Record<string, string>) {
  const c = filterConditions(params, PAGING_PARAMS);
  return c.length > 0 ? sql`where ${sql.join(c, sql` and `)}` : sql``;
}

async function count(database: Database, params: Record<string, string>): Promise<number> {
  const [row] = await query<{ n: string }>(database.db, sql`select count(*) as n from orders o ${where(params)}`);
  return Number(row!.n);
}

/** The cursor whose next page is the oldest DEFAULT_PAGE_SIZE matches: the last page. */
async function lastPageCursor(database: Database, params: Record<string, string>): Promise<string | undefined> {
  const [row] = await query<{ us: string; id: string }>(
    database.db,
    sql`select (extract(epoch from o.created_at) * 1000000)::bigint::text as us, o.id from orders o ${where(params)}
        order by o.created_at asc, o.id asc offset ${DEFAULT_PAGE_SIZE} limit 1`,
  );
  return row ? `${row.us}_${row.id}` : undefined;
}

async function load(database: Database): Promise<void> {
  const sql = database.sql!;
  await sql.unsafe(`
    set synchronous_commit = off;
    set statement_timeout = 0;
    insert into brokerages (id, name) select b, 'Brokerage ' || b from generate_series(1, 40) b;
    insert into offices (id, brokerage_id, name) select f, 1 + (f - 1) / 5, 'Office ' || f from generate_series(1, 100) f;
    insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email,
      state, created_at, updated_at, accepted_at, completed_at, event_seq)
    select g, 'B-' || g, 1 + (g * 7) % 100, 21 + (g * 13) % 20, (array['tbd','flash','local_pickup'])[1 + g % 3], 1 + g % 4,
      'Recipient ' || g, 'r' || g || '@bench.test',
      case when g % 10 < 4 then 'pending' when g % 10 < 8 then 'accepted' else 'completed' end,
      timestamptz '2026-01-01T00:00:00Z' + g * interval '31 seconds',
      timestamptz '2026-01-01T00:00:00Z' + g * interval '31 seconds' + (g % 1000) * interval '1 minute',
      case when g % 10 >= 4 then timestamptz '2026-01-01T00:00:00Z' + g * interval '31 seconds' + interval '1 minute' end,
      case when g % 10 >= 8 then timestamptz '2026-01-01T00:00:00Z' + g * interval '31 seconds' + interval '1 hour' end,
      case when g % 10 >= 4 then 1 else 0 end
    from generate_series(1, ${ORDERS}) g;
    insert into shipments (order_id, type, state, snapshot, created_at)
    select g,
      case when g % 100 < 50 then 'TBD' when g % 100 < 70 then 'XMobile' when g % 100 < 85 then 'Eticket'
           when g % 100 < 95 then 'LocalPickup' when g % 100 < 99 then 'XSeats' else 'XMobileLink' end,
      case when g % 10 >= 8 then 'delivered' else 'pending' end, '{"value":"pending"}',
      timestamptz '2026-01-01T00:00:00Z' + g * interval '31 seconds'
    from generate_series(1, ${ORDERS}) g where g % 10 >= 4;
    insert into commands (id, name, brokerage_id, request_hash, payload, status, result_status, attempts, created_at, finished_at)
    select 'bench-' || g, 'order.accept', 1, 'x', jsonb_build_object('order_id', g * 5), 'succeeded', 200, 1,
      timestamptz '2026-01-01T00:00:00Z' + g * interval '155 seconds', timestamptz '2026-01-01T00:00:00Z' + g * interval '155 seconds'
    from generate_series(1, 200000) g;
    insert into commands (id, name, brokerage_id, request_hash, payload, status, attempts)
    select 'bench-open-' || g, 'order.accept', 1, 'x', jsonb_build_object('order_id', g * 9973), case when g % 2 = 0 then 'failed' else 'queued' end, 3
    from generate_series(1, 40) g;
    analyze;
  `);
}
