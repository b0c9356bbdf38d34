import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { SecretBox } from '../src/auth/secret-box.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { seedDatabase } from '../src/domain/seed.ts';
import { fixtureSchema } from '../src/domain/fixture.ts';
import { FeedCursors } from '../src/read/feed-cursor.ts';
import { readFeedPage } from '../src/read/read-feed.ts';
import { resealCredentials, startBenchApi } from './bench-api.ts';
import { loadBenchDatabase } from './bench-database.ts';
import { httpCaller } from './commands/flows.ts';

/**
 * GET /v9/events over a large history: 250,000 orders of 4 events each (1,000,000 events), sold
 * by brokerage 1 (whose feed holds all of them) to brokerages 2 to 5 (a quarter each, spread over
 * the whole history), loaded in SQL into a fresh database. Page time at the first page, the
 * middle and the last full page, through the real endpoint (signed HTTP, keep-alive) and through
 * the same read from Node (readFeedPage), in one run.
 */
const ORDERS = 250_000;
const EVENTS_PER_ORDER = 4;
const SELLER = { token: 'FeedBenchSellerToken000000000001', secret: 'feed-bench-seller-secret-000000000000001' };
const BUYER = { token: 'FeedBenchBuyerToken0000000000002', secret: 'feed-bench-buyer-secret-0000000000000002' };
const FEEDS = [
  { label: 'seller (brokerage 1, every event)', brokerageId: 1, cred: SELLER },
  { label: 'buyer (brokerage 2, one order in four)', brokerageId: 2, cred: BUYER },
];

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { reuse: { type: 'boolean' }, iterations: { type: 'string', default: '60' } } });
  const iterations = Number(values.iterations);
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/fulfil_feed_bench';
  const key = randomBytes(32).toString('hex');

  if (!values.reuse) {
    await loadBenchDatabase(url, `${ORDERS * EVENTS_PER_ORDER} events`, async (database) => {
      await seedDatabase(database, fixtureSchema.parse(fixture()), SecretBox.fromKey(key));
      await load(database);
    });
  } else {
    await resealCredentials(url, fixture(), key);
  }

  const api = await startBenchApi(url, key);
  const bare = await openDatabase({ databaseUrl: url, maxConnections: 1 });
  try {
    process.stdout.write(await measure(api.url, bare, FeedCursors.from(SecretBox.fromKey(key)), iterations));
  } finally {
    await bare.close();
    await api.stop();
  }
  return 0;
}

function fixture() {
  const brokerage = (id: number, cred?: typeof SELLER) => ({
    id,
    name: `Feed Bench ${id}`,
    offices: [{ id: id * 10, name: `Office ${id * 10}` }],
    credentials: cred ? [{ kind: 'api' as const, ...cred }] : [],
  });
  return { brokerages: [brokerage(1, SELLER), brokerage(2, BUYER), brokerage(3), brokerage(4), brokerage(5)], events: [] };
}

/**
 * Events arrive interleaved, as real traffic does: orders advance in waves of 1,000, each wave
 * taking its orders one step further, so an order's four events lie far apart in the feed.
 */
async function load(database: Database): Promise<void> {
  const kinds = `(array['created','updated','updated','completed'])`;
  const types = `(array['TBD','XMobile','XMobileLink','XMobileLink'])`;
  await database.sql!.unsafe(`
    set synchronous_commit = off;
    insert into orders (id, oid, seller_office_id, buyer_brokerage_id, delivery, quantity, recipient_name, recipient_email, state, event_seq)
    select o, 'FB-' || o, 10, 2 + o % 4, 'tbd', 2, 'Rae Recipient', 'rae@bench.test', 'completed', ${EVENTS_PER_ORDER}
    from generate_series(1, ${ORDERS}) o;
    insert into shipments (id, order_id, type, state, snapshot, ship_to_name, x_mobile_link, delivered_at)
    select o, o, 'XMobileLink', 'delivered', '{}', 'Rae Recipient', 'https://claim.bench.test/' || o, now()
    from generate_series(1, ${ORDERS}) o;
    select setval('shipments_id_seq', ${ORDERS});
    insert into shipment_events (event_id, order_id, seq, kind, shipment_id, new_shipment_id, from_type, from_state, to_type,
      to_state, actor_brokerage_id, actor_role, command_id, at)
    select 'fb-' || o || '-' || s, o, s, ${kinds}[s], case when s > 1 then o end, o, case when s > 1 then ${types}[s - 1] end,
      case when s > 1 then 'pending' end, ${types}[s], case when s = 4 then 'delivered' else 'pending' end, 1, 'seller',
      'c-fb-' || o || '-' || s, timestamptz '2026-01-01T00:00:00Z' + ((o / 1000) * 4 + s) * interval '1 minute'
    from generate_series(1, ${ORDERS}) o, generate_series(1, ${EVENTS_PER_ORDER}) s
    order by o / 1000, s, o;
    insert into event_feed (event_row_id, seller_brokerage_id, buyer_brokerage_id, position)
    select e.id, 1, o.buyer_brokerage_id, e.id
    from shipment_events e join orders o on o.id = e.order_id
    order by e.id;
    update event_feed_head set position = (select max(position) from event_feed);`);
  for (const table of ['orders', 'shipments', 'shipment_events', 'event_feed']) await database.sql!.unsafe(`vacuum analyze ${table}`);
}

/** The rows of a brokerage's feed (as seller or buyer, an event counted once), for the bench's own cursors. */
const inFeed = (db: Database, brokerageId: number) =>
  db.sql!`position is not null and (seller_brokerage_id = ${brokerageId} or (buyer_brokerage_id = ${brokerageId} and seller_brokerage_id <> ${brokerageId}))`;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

async function measure(baseUrl: string, bare: Database, feedCursors: FeedCursors, iterations: number): Promise<string> {
  const call = httpCaller(baseUrl, 1);
  const out = [
    `## Event feed (GET /v9/events), ${ORDERS * EVENTS_PER_ORDER} events over ${ORDERS} orders`,
    '',
    `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}; ${iterations} pages per cell.`,
    '',
    '| feed | limit | cursor | events after it | endpoint p50 ms | endpoint p99 ms | CPU ms/page (process) | read from Node p50 ms | ÷ first page (endpoint p50) |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const feed of FEEDS) {
    const [{ total }] =
      (await bare.sql!`select count(*)::int as total from event_feed where ${inFeed(bare, feed.brokerageId)}`) as unknown as [
        { total: number },
      ];
    for (const limit of [100, 1000]) {
      const at = async (offset: number) =>
        Number(
          (
            (await bare.sql!`select position from event_feed where ${inFeed(bare, feed.brokerageId)}
                             order by position offset ${offset} limit 1`) as unknown as [{ position: string }]
          )[0]!.position,
        );
      const cursors: Array<[string, number, number]> = [
        ['first', 0, total],
        ['middle', await at(Math.floor(total / 2) - 1), total - Math.floor(total / 2)],
        ['last full page', await at(total - limit - 1), limit],
      ];
      let firstP50 = 0;
      for (const [name, position, after] of cursors) {
        const pathAndQuery = `/v9/events?limit=${limit}${position === 0 ? '' : `&after=${feedCursors.issue(feed.brokerageId, position)}`}`;
        const once = async () => {
          const t0 = performance.now();
          const res = await call(feed.cred, 'GET', pathAndQuery);
          const ms = performance.now() - t0;
          const body = JSON.parse(res.text) as { events: unknown[] };
          if (res.status !== 200 || body.events.length !== limit)
            throw new Error(`${pathAndQuery}: ${res.status}, ${body.events?.length} events`);
          return ms;
        };
        const direct = async () => {
          const t0 = performance.now();
          await readFeedPage(bare.db, feed.brokerageId, position, limit);
          return performance.now() - t0;
        };
        for (let i = 0; i < 5; i++) await Promise.all([once(), direct()]);
        const endpoint: number[] = [];
        const node: number[] = [];
        // The service runs in this process: its CPU time per page, client side (signing, parsing) included.
        const cpu0 = process.cpuUsage();
        for (let i = 0; i < iterations; i++) endpoint.push(await once());
        const cpu = process.cpuUsage(cpu0);
        const cpuMs = (cpu.user + cpu.system) / 1000 / iterations;
        for (let i = 0; i < iterations; i++) node.push(await direct());
        if (name === 'first') firstP50 = pct(endpoint, 50);
        out.push(
          `| ${feed.label} | ${limit} | ${name} | ${after.toLocaleString('en-US')} | ${pct(endpoint, 50).toFixed(2)} | ${pct(endpoint, 99).toFixed(2)} | ${cpuMs.toFixed(1)} | ${pct(node, 50).toFixed(2)} | ${(pct(endpoint, 50) / firstP50).toFixed(2)} |`,
        );
      }
    }
  }
  return `${out.join('\n')}\n`;
}
