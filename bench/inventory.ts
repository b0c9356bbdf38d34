import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { signedFetch } from '../src/auth/signed-fetch.ts';
import { signRequest } from '../src/auth/signer.ts';
import { SecretBox } from '../src/auth/secret-box.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { seedDatabase } from '../src/domain/seed.ts';
import { fixtureSchema } from '../src/domain/fixture.ts';
import type { IndexQuery } from '../src/inventory/index-query.ts';
import { inventoryPageSql } from '../src/inventory/index-sql.ts';
import { runInventorySql } from '../src/inventory/read-inventory.ts';
import { resealCredentials, startBenchApi } from './bench-api.ts';
import { loadBenchDatabase } from './bench-database.ts';

/**
 * Inventory index: 1,000,000 ticket groups over 10 offices (2 seats each), loaded in SQL into a
 * fresh database; the real service (HTTP, auth, office check) against the bare SQL behind a
 * page, run from Node on the same database, in one run. Pages: default mode (MAPPED, 10000)
 * and detailed mode (1000); at the first cursor, the middle and the last full page.
 */
const OFFICES = Array.from({ length: 10 }, (_, i) => 101 + i);
const PER_OFFICE = 100_000;
const CRED = { token: 'BenchApiToken0000000000000000001', secret: 'bench-api-secret-00000000000000000000001' };
const OFFICE = OFFICES[0]!;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { reuse: { type: 'boolean' }, iterations: { type: 'string', default: '300' } } });
  const iterations = Number(values.iterations);
  const url = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/fulfil_bench';
  const key = randomBytes(32).toString('hex');

  if (!values.reuse) {
    await loadBenchDatabase(url, `${OFFICES.length * PER_OFFICE} ticket groups`, (database) => load(database, key));
  } else {
    await resealCredentials(url, fixture(), key);
  }

  const api = await startBenchApi(url, key);
  const bare = await openDatabase({ databaseUrl: url, maxConnections: 1 });
  try {
    const report = await measure(api.url, bare, iterations);
    process.stdout.write(report);
  } finally {
    await bare.close();
    await api.stop();
  }
  return 0;
}

function fixture() {
  return {
    brokerages: [
      {
        id: 1,
        name: 'Bench Brokerage',
        offices: OFFICES.map((id) => ({ id, name: `Office ${id}` })),
        credentials: [{ kind: 'api' as const, ...CRED }],
      },
    ],
    events: Array.from({ length: 50 }, (_, i) => ({ id: 5000 + i, name: `Event ${i}` })),
  };
}

/**
 * Office by office, in remote_id order, as imports arrive. Every fourth group is unmapped; the
 * service ids of an office are a permutation of its remote order, so detailed pages (by id)
 * read the heap out of order, as real mapping over time would leave it.
 */
async function load(database: Database, key: string): Promise<void> {
  await seedDatabase(database, fixtureSchema.parse(fixture()), SecretBox.fromKey(key));
  const sql = database.sql!;
  await sql.unsafe(`
    set synchronous_commit = off;
    insert into ticket_groups (office_id, remote_id, id, event_id, account_email, cost, taxed_cost, price, face_value,
      discount, quantity, format, type, view_type, section, row, split_type, split_override, wheelchair_accessible,
      eticket, instant_delivery, in_hand, in_hand_on, external_notes, speculative, created_at, updated_at)
    select o, g,
      case when g % 4 <> 0 then o * 1000000 + (g * 7919) % ${PER_OFFICE} end,
      case when g % 4 <> 0 then 5000 + g % 50 end,
      'box' || o || '@bench.test', 20 + g % 300 + 0.5, (20 + g % 300) * 1.08, 35 + g % 400, 30 + g % 300, g % 5,
      2 + g % 6, (array['X_MOBILE','ETICKET','PHYSICAL','X_SEATS'])[1 + g % 4], 'EVENT',
      case when g % 7 = 0 then 'OBSTRUCTED' else 'FULL' end, 'S' || (100 + g % 40), chr(65 + g % 26),
      'NEVERLEAVEONE', case when g % 3 = 0 then array[2, 4] end, g % 50 = 0, g % 2 = 0, g % 3 = 0, g % 5 = 0,
      case when g % 5 <> 0 then date '2026-12-01' + g % 60 end, case when g % 10 = 0 then 'note ' || g end, false,
      timestamptz '2026-01-01T00:00:00Z' + g * interval '1 second', timestamptz '2026-06-01T00:00:00Z' + g * interval '1 second'
    from generate_series(${OFFICES[0]}, ${OFFICES[OFFICES.length - 1]}) o, generate_series(1, ${PER_OFFICE}) g
    order by o, g;
    insert into seats (ticket_group_pk, position, barcode, primary_ticket_id, seat, verification_id)
    select tg.pk, p, 'BC' || tg.pk || '-' || p, case when p = 0 then tg.pk * 10 end, (p + 1)::text, 'V' || tg.pk
    from ticket_groups tg, generate_series(0, 1) p order by tg.pk, p;`);
  await sql.unsafe('vacuum analyze ticket_groups');
  await sql.unsafe('vacuum analyze seats');
}

interface Kind {
  label: string;
  rows: number;
  query: (cursor: number) => IndexQuery;
  path: (cursor: number) => string;
  /** The cursor of the last full page: the key page-size records before the end. */
  lastCursor: string;
}

const KINDS: Kind[] = [
  {
    // Not a target: shows the fixed cost of a request (auth, rate limit, office check, HTTP).
    label: 'default mode, MAPPED, page[items]=1 (fixed cost per request)',
    rows: 1,
    query: (cursor) => ({ mode: 'default', officeId: OFFICE, state: 'MAPPED', cursor, items: 1 }),
    path: (cursor) => `/v9/inventory?office_id=${OFFICE}&state=MAPPED&page[cursor]=${cursor}&page[items]=1`,
    lastCursor: `select remote_id as k from ticket_groups where office_id = ${OFFICE} and id is not null and event_id is not null order by remote_id desc offset 0 limit 1`,
  },
  {
    label: 'default mode, MAPPED, page[items]=10000',
    rows: 10_000,
    query: (cursor) => ({ mode: 'default', officeId: OFFICE, state: 'MAPPED', cursor, items: 10_000 }),
    path: (cursor) => `/v9/inventory?office_id=${OFFICE}&state=MAPPED&page[cursor]=${cursor}&page[items]=10000`,
    lastCursor: `select remote_id as k from ticket_groups where office_id = ${OFFICE} and id is not null and event_id is not null order by remote_id desc offset 9999 limit 1`,
  },
  {
    label: 'detailed mode, page[items]=1000',
    rows: 1_000,
    query: (cursor) => ({ mode: 'detailed', officeId: OFFICE, state: 'MAPPED', cursor, items: 1_000 }),
    path: (cursor) => `/v9/inventory?office_id=${OFFICE}&response=detailed&page[cursor]=${cursor}&page[items]=1000`,
    lastCursor: `select id as k from ticket_groups where office_id = ${OFFICE} and id is not null and event_id is not null order by id desc offset 999 limit 1`,
  },
];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

type Path = 'bare' | 'http' | 'fetch';
const PATHS: ReadonlyArray<readonly [Path, string]> = [
  ['bare', 'bare SQL from Node (same text, body read)'],
  ['http', 'endpoint, node:http keep-alive client'],
  ['fetch', 'endpoint, fetch (undici) client'],
];

/** A signed GET over a keep-alive node:http agent, body read to the end as text. */
function httpGetter(baseUrl: string) {
  const base = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return (pathAndQuery: string) => {
    const q = pathAndQuery.indexOf('?');
    const signed = signRequest({
      secret: CRED.secret,
      method: 'GET',
      host: base.hostname,
      path: pathAndQuery.slice(0, q),
      query: pathAndQuery.slice(q + 1),
    });
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
      http
        .get(
          {
            host: base.hostname,
            port: base.port,
            path: signed.target,
            agent,
            headers: { 'x-token': CRED.token, 'x-signature': signed.signature },
          },
          (res) => {
            res.setEncoding('utf8');
            let text = '';
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
            res.on('error', reject);
          },
        )
        .on('error', reject);
    });
  };
}

async function measure(baseUrl: string, bare: Database, iterations: number): Promise<string> {
  const out: string[] = [];
  const httpGet = httpGetter(baseUrl);
  for (const kind of KINDS) {
    const [{ k: last }] = (await bare.sql!.unsafe(kind.lastCursor)) as unknown as [{ k: number }];
    const [{ k: middle }] = (await bare.sql!.unsafe(kind.lastCursor.replace(/desc offset \d+/, `offset ${PER_OFFICE / 3}`))) as unknown as [
      { k: number },
    ];
    const cursors = { first: 1, middle: Number(middle), last: Number(last) };

    // Body sizes by cursor, from the bare query: the endpoint must answer the very same text.
    const sizes = new Map<number, number>();
    const once: Record<Path, (cursor: number) => Promise<number>> = {
      bare: async (cursor) => {
        const t0 = performance.now();
        const [row] = await runInventorySql<{ body: string }>(bare, inventoryPageSql(kind.query(cursor)));
        const ms = performance.now() - t0;
        sizes.set(cursor, row!.body.length);
        return ms;
      },
      http: async (cursor) => {
        const t0 = performance.now();
        const res = await httpGet(kind.path(cursor));
        const ms = performance.now() - t0;
        check(res.status, res.text.length, sizes.get(cursor));
        return ms;
      },
      fetch: async (cursor) => {
        const t0 = performance.now();
        const res = await signedFetch(baseUrl, CRED, 'GET', kind.path(cursor));
        const text = await res.text();
        const ms = performance.now() - t0;
        check(res.status, text.length, sizes.get(cursor));
        return ms;
      },
    };
    // Warm-up: buffers, connections, JIT of every path.
    for (let i = 0; i < 5; i++) for (const c of Object.values(cursors)) for (const [p] of PATHS) await once[p](c);

    // Blocks of one path at one cursor; the order of the paths rotates each round, so slow
    // drift (autovacuum, page cache) does not favour one of them.
    const rounds = 3;
    const perBlock = Math.max(1, Math.round(iterations / (rounds * 3)));
    const all: Record<Path, number[]> = { bare: [], http: [], fetch: [] };
    const byCursor: Record<string, Record<Path, number[]>> = {};
    for (let round = 0; round < rounds; round++) {
      const order = [...PATHS.slice(round), ...PATHS.slice(0, round)];
      for (const [name, cursor] of Object.entries(cursors)) {
        const slot = (byCursor[name] ??= { bare: [], http: [], fetch: [] });
        for (const [p] of order) {
          for (let i = 0; i < perBlock; i++) {
            const ms = await once[p](cursor);
            all[p].push(ms);
            slot[p].push(ms);
          }
        }
      }
    }
    const bytes = sizes.get(cursors.first)!;
    const ratio = (p: Path) =>
      `p50 ${(pct(all[p], 50) / pct(all.bare, 50)).toFixed(2)}, p99 ${(pct(all[p], 99) / pct(all.bare, 99)).toFixed(2)}`;
    out.push(
      `### ${kind.label} (office ${OFFICE}, ${(bytes / 1024).toFixed(0)} KiB a page, ${all.bare.length} pages a path)`,
      '',
      '| path | p50 ms | p99 ms | rows/s at p50 |',
      '|---|---|---|---|',
      ...PATHS.map(
        ([p, label]) =>
          `| ${label} | ${pct(all[p], 50).toFixed(2)} | ${pct(all[p], 99).toFixed(2)} | ${Math.round(kind.rows / (pct(all[p], 50) / 1000)).toLocaleString('en-US')} |`,
      ),
      '',
      `ratio endpoint/bare: node:http ${ratio('http')}; fetch ${ratio('fetch')}`,
      '',
      '| cursor | key | bare p50 ms | node:http p50 ms | fetch p50 ms |',
      '|---|---|---|---|---|',
      ...Object.entries(cursors).map(([n, c]) => {
        const s = byCursor[n]!;
        return `| ${n} | ${c} | ${pct(s.bare, 50).toFixed(2)} | ${pct(s.http, 50).toFixed(2)} | ${pct(s.fetch, 50).toFixed(2)} |`;
      }),
      '',
    );
  }
  return `${out.join('\n')}\n`;
}

function check(status: number, length: number, expected: number | undefined): void {
  if (status !== 200 || length !== expected)
    throw new Error(`endpoint answered ${status} with ${length} characters; bare SQL gave ${expected}`);
}
