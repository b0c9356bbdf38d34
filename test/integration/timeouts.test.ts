import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { apiClient } from '../support/api.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** Opens a socket to the server; resolves when it is connected. */
function connect(url: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(port), hostname, () => resolve(s));
    s.once('error', reject);
  });
}

/** Resolves with what the server sent and when it closed the socket (ms after `since`). */
function closedBy(socket: net.Socket, since: number): Promise<{ afterMs: number; received: string }> {
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  socket.on('error', () => {});
  return new Promise((resolve) => socket.once('close', () => resolve({ afterMs: Date.now() - since, received })));
}

describe('HTTP timeouts and the connection cap', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({
      roles: { api: true, worker: false },
      env: {
        HTTP_REQUEST_TIMEOUT_MS: '2000',
        HTTP_HEADERS_TIMEOUT_MS: '1000',
        HTTP_MAX_CONNECTIONS: '40',
        HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '1500',
      },
    });
    await t.seed(baseFixture());
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('slow bodies: every connection trickling a declared 60 KB body is answered 408 and closed in time', async () => {
    const since = Date.now();
    const sockets = await Promise.all(Array.from({ length: 20 }, () => connect(t.url)));
    const closes = sockets.map((s) => closedBy(s, since));
    const timers = sockets.map((s) => {
      s.write(
        `POST /v9/credentials/current/verify HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 60000\r\n\r\n{`,
      );
      return setInterval(() => s.writable && s.write('"'), 300);
    });
    try {
      const results = await Promise.all(closes);
      for (const r of results) {
        // Request timeout 2 s, checked every second: well under 5 s, never "forever".
        expect(r.afterMs).toBeLessThan(5_000);
        expect(r.received).toMatch(/^HTTP\/1\.1 408 /);
        expect(r.received).toContain('{"errors":[{"code":"request_timeout","message":"the request was not received in time"}]}');
      }
    } finally {
      timers.forEach(clearInterval);
      sockets.forEach((s) => s.destroy());
    }
  }, 20_000);

  it('a connection that never sends its headers is closed after the headers timeout', async () => {
    const since = Date.now();
    const s = await connect(t.url);
    s.write('GET /livez HTTP/1.1\r\nhost: x\r\n');
    const r = await closedBy(s, since);
    expect(r.afterMs).toBeLessThan(4_000);
  }, 10_000);

  it('a connection that sends nothing at all is answered 408 and closed after the headers timeout, not the connection timeout', async () => {
    const since = Date.now();
    const s = await connect(t.url);
    const closed = closedBy(s, since);
    // Headers timeout 1 s, checked every second; the connection timeout (120 s) must not be what ends it.
    const r = await Promise.race([closed, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 4_000))]);
    s.destroy();
    expect(r, 'still open 4 s after connecting').toBeDefined();
    expect(r!.afterMs).toBeGreaterThanOrEqual(900);
    expect(r!.afterMs).toBeLessThan(2_500);
    expect(r!.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(r!.received).toContain('"the request was not received in time"');
  }, 10_000);

  it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const s = await connect(t.url);
    const since = Date.now();
    const closed = closedBy(s, since);
    s.write('GET /livez HTTP/1.1\r\nhost: x\r\n\r\n');
    const r = await closed;
    expect(r.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(r.afterMs).toBeGreaterThanOrEqual(1_000);
    expect(r.afterMs).toBeLessThan(4_000);
  }, 10_000);

  it('past HTTP_MAX_CONNECTIONS a connection with a request under way is never closed: a new one is, at once', async () => {
    const held = await Promise.all(Array.from({ length: 40 }, () => connect(t.url)));
    // Each has a request under way: headers read, its body still coming.
    for (const s of held) s.write('POST /v9/credentials/current/verify HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\n{');
    await new Promise((r) => setTimeout(r, 200));
    try {
      const extra = await connect(t.url);
      const r = await closedBy(extra, Date.now());
      expect(r.received).toBe('');
      expect(r.afterMs).toBeLessThan(1_000);
      expect(held.every((s) => !s.destroyed)).toBe(true);
    } finally {
      held.forEach((s) => s.destroy());
    }
    await new Promise((r) => setTimeout(r, 200));
    expect((await fetch(`${t.url}/livez`)).status).toBe(200);
  }, 10_000);

  it('past HTTP_MAX_CONNECTIONS idle connections make room: the longest idle is closed, the new one served', async () => {
    const held = await Promise.all(Array.from({ length: 40 }, () => connect(t.url)));
    const firstClosed = closedBy(held[0]!, Date.now());
    try {
      expect((await fetch(`${t.url}/livez`)).status).toBe(200);
      expect((await firstClosed).received).toBe('');
    } finally {
      held.forEach((s) => s.destroy());
    }
  }, 10_000);

  it('GET /v9/commands/%00 and other ids that cannot exist are 404 not_found, never 500', async () => {
    const call = apiClient(t.url);
    for (const id of ['%00', 'a%00b', '%C3%A9', '%E2%80%8B', 'c-123%20456', '..%2F..%2Fx']) {
      const res = await call(SELLER, 'GET', `/v9/commands/${id}`);
      expect(res.status, id).toBe(404);
      expect(res.body.errors[0].code).toBe('not_found');
    }
    // Longer than any path parameter may be: refused before routing, still a 4xx.
    expect((await call(SELLER, 'GET', `/v9/commands/${'x'.repeat(101)}`)).status).toBe(400);
  });
});

describe('Postgres connections carry their timeouts', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('statement_timeout and idle_in_transaction_session_timeout are set on every connection; a long statement is cancelled', async () => {
    const database = await openDatabase({
      databaseUrl: db.url,
      maxConnections: 2,
      timeouts: { connectMs: 2_000, statementMs: 300, idleInTransactionMs: 700, idleMs: 0 },
    });
    try {
      const [row] =
        await database.sql!`select current_setting('statement_timeout') as st, current_setting('idle_in_transaction_session_timeout') as it`;
      expect(row).toEqual({ st: '300ms', it: '700ms' });
      await expect(database.sql!`select pg_sleep(2)`).rejects.toMatchObject({ code: '57014' });
    } finally {
      await database.close();
    }
  });

  it('a connection that cannot open fails after the connect timeout, not 30 s', async () => {
    // A listener that accepts and never answers: Postgres as seen through a dead network path.
    const server = net.createServer(() => {});
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as net.AddressInfo;
    const database = await openDatabase({
      databaseUrl: `postgres://postgres@127.0.0.1:${port}/x`,
      timeouts: { connectMs: 500, statementMs: 1000, idleInTransactionMs: 1000, idleMs: 0 },
    });
    const started = Date.now();
    try {
      await expect(database.sql!`select 1`).rejects.toMatchObject({ code: 'CONNECT_TIMEOUT' });
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await database.close();
      server.close();
    }
  });
});
