import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { signedFetch } from '../src/auth/signed-fetch.ts';
import { readEmbeddedAddress } from '../src/db/pglite-socket.ts';
import { freePort } from '../src/redis/private-server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEMO = path.join(ROOT, 'fixtures', 'demo.json');

/**
 * Guest session abuse: a `fulfil start` on the embedded database (PGlite), and CLI guests on its
 * socket doing what a careless operator's psql would: leave the shared session read-only, change
 * it for good, sleep in a statement (briefly, and past EMBEDDED_GUEST_STATEMENT_MS), vanish in the
 * middle of a transaction. After each abuse a command must still answer 200, and /livez must keep
 * answering while the guests run: PGlite runs in a thread of its own (docs/OPERATIONS.md).
 */
export interface GuestFigures {
  abuses: number;
  commandsOk: number;
  failures: string[];
  /** The longest /livez answer while the guests ran, and the short statement a guest slept. */
  maxLivezMs: number;
  guestSleepMs: number;
  readyAtEnd: boolean;
}

const GUEST_SLEEP_MS = 1_000;
/** The service's bound on a guest statement here; one guest sleeps far past it. */
const GUEST_STATEMENT_MS = 2_000;
const LIVEZ_LIMIT_MS = 1_500;

export async function runGuestAbuse(redisUrl: string, prefix: string): Promise<GuestFigures> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-chaos-guest-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    PATH: process.env.PATH,
    DATA_DIR: dataDir,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    EMBEDDED_GUEST_STATEMENT_MS: String(GUEST_STATEMENT_MS),
  };
  // The demo's four orders and a fifth like the first: one accept after each abuse.
  const demoData = JSON.parse(readFileSync(DEMO, 'utf8')) as { orders: Array<{ id: number; oid: string }> };
  demoData.orders.push({ ...demoData.orders[0]!, id: 704, oid: '1001-704' });
  const fixture = path.join(dataDir, 'fixture.json');
  writeFileSync(fixture, JSON.stringify(demoData), { mode: 0o600 });
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'fulfil.mjs'), 'start', '--seed', fixture], { env, stdio: 'ignore' });
  const failures: string[] = [];
  let maxLivezMs = 0;
  let polling = true;
  try {
    await waitFor(async () => (await fetch(`${base}/readyz`)).ok, 90_000);
    const demo = JSON.parse(readFileSync(DEMO, 'utf8')) as {
      brokerages: Array<{ credentials: Array<{ kind: string; token: string; secret: string }> }>;
    };
    const seller = demo.brokerages[0]!.credentials.find((c) => c.kind === 'api')!;
    const socketPath = readEmbeddedAddress(path.join(dataDir, 'pglite'))!.path;
    const guest = () =>
      postgres({ path: socketPath, database: 'postgres', username: 'postgres', max: 1, prepare: false, onnotice: () => {} });

    const poll = (async () => {
      while (polling) {
        const t0 = Date.now();
        await fetch(`${base}/livez`).catch(() => {});
        maxLivezMs = Math.max(maxLivezMs, Date.now() - t0);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    const abuses: Array<[string, () => Promise<void>]> = [
      ['read-only, then gone', async () => void (await using(guest(), (sql) => sql.unsafe('set default_transaction_read_only = on')))],
      [
        'session characteristics read-only, still connected',
        async () => void (await using(guest(), (sql) => sql.unsafe('set session characteristics as transaction read only'), false)),
      ],
      ['pg_sleep', async () => void (await using(guest(), (sql) => sql.unsafe(`select pg_sleep(${GUEST_SLEEP_MS / 1000})`)))],
      ['pg_sleep past the bound', () => sleepPastTheBound(guest())],
      ['vanished inside a transaction', () => vanishInTransaction(socketPath)],
    ];
    const orders = [700, 701, 702, 703, 704];
    let commandsOk = 0;
    for (const [i, [name, abuse]] of abuses.entries()) {
      await abuse().catch((err: Error) => failures.push(`${name}: the guest itself failed: ${err.message}`));
      const res = await signedFetch(
        base,
        seller,
        'POST',
        `/v9/orders/${orders[i]}/accept`,
        JSON.stringify({ reviewer_id: 100 }),
        {},
        AbortSignal.timeout(30_000),
      );
      if (res.status === 200) commandsOk++;
      else failures.push(`${name}: accept of order ${orders[i]} answered ${res.status} ${await res.text()}`);
    }
    polling = false;
    await poll;
    const readyAtEnd = (await fetch(`${base}/readyz`)).ok;
    if (!readyAtEnd) failures.push('not ready after the guests left');
    if (maxLivezMs > LIVEZ_LIMIT_MS) failures.push(`/livez took ${maxLivezMs} ms`);
    return { abuses: abuses.length, commandsOk, failures, maxLivezMs, guestSleepMs: GUEST_SLEEP_MS, readyAtEnd };
  } finally {
    polling = false;
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function using<T>(sql: postgres.Sql, fn: (sql: postgres.Sql) => Promise<T>, end = true): Promise<T> {
  try {
    return await fn(sql);
  } finally {
    // "still connected": left open until the command after it has run, then dropped.
    if (end) await sql.end({ timeout: 1 });
    else setTimeout(() => void sql.end({ timeout: 1 }), 5_000).unref();
  }
}

/** A 30 s sleep, which the service must stop after GUEST_STATEMENT_MS with 57014 (query_canceled). */
async function sleepPastTheBound(sql: postgres.Sql): Promise<void> {
  const started = Date.now();
  const err = await using(sql, (s) => s.unsafe('select pg_sleep(30)')).then(
    () => undefined,
    (e: { code?: string }) => e,
  );
  const ms = Date.now() - started;
  if (err?.code !== '57014') throw new Error(`the 30 s sleep ended with ${err?.code ?? 'success'} after ${ms} ms, not 57014`);
  if (ms > GUEST_STATEMENT_MS + 5_000) throw new Error(`the 30 s sleep was stopped only after ${ms} ms`);
}

/** A raw client that opens a transaction and drops the connection without a word. */
async function vanishInTransaction(socketPath: string): Promise<void> {
  const sql = postgres({ path: socketPath, database: 'postgres', username: 'postgres', max: 1, prepare: false, onnotice: () => {} });
  const tx = sql
    .begin(async (t) => {
      await t.unsafe('set local default_transaction_read_only = on');
      await t.unsafe('create temporary table guest_left_behind (x int)');
      await new Promise(() => {}); // never commits
    })
    .catch(() => {});
  await new Promise((r) => setTimeout(r, 300));
  // Ending with timeout 0 destroys the connection mid-transaction.
  await sql.end({ timeout: 0 });
  await Promise.race([tx, new Promise((r) => setTimeout(r, 1_000))]);
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error('the embedded service did not become ready');
    await new Promise((r) => setTimeout(r, 250));
  }
}
