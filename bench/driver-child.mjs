// One round of `npm run bench -- driver` in a process of its own (bench/driver.ts): the postgres.js
// of the checkout given, warmed up, then `transactions` worker-shaped transactions, 16 at once on
// 8 connections; prints the Node CPU µs per statement.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, transactionsArg, url] = process.argv.slice(2);
const { default: connect } = await import(pathToFileURL(path.join(dir, 'node_modules/postgres/src/index.js')).href);
const sql = connect(url, { max: 8, prepare: true, onnotice: () => {} });
const columns = Array.from({ length: 60 }, (_, i) => `'column_${i}' as c${i}`).join(', ');
const LONG_TEXT = `with a as (select $1::bigint as id, $2::text as note), b as (select id, note, ${columns} from a) select id, note, c1, c2, c3 from b`;
const STATEMENTS_PER_TRANSACTION = 5;

async function transactions(n) {
  let left = n;
  const one = async () => {
    const c = await sql.reserve();
    try {
      await Promise.all([c.unsafe('begin', []).execute(), c.unsafe(LONG_TEXT, [1, 'x'.repeat(200)]).execute()]);
      await Promise.all([
        c.unsafe(LONG_TEXT, [2, 'y']).execute(),
        c.unsafe('select $1::int as n, now() as at', [3]).execute(),
        c.unsafe('commit', []).execute(),
      ]);
    } finally {
      c.release();
    }
  };
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (left-- > 0) await one();
    }),
  );
}

try {
  await transactions(3_000); // warm: V8 compiles the hot paths
  const n = Number(transactionsArg);
  const before = process.cpuUsage();
  await transactions(n);
  const used = process.cpuUsage(before);
  process.stdout.write(`${(used.user + used.system) / (n * STATEMENTS_PER_TRANSACTION)}\n`);
} finally {
  await sql.end();
}
