import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { fixtureSchema } from '../../src/domain/fixture.ts';
import { seedDatabase } from '../../src/domain/seed.ts';
import { MAX_UPLOAD_REQUEST_BYTES } from '@fulfil/contract';
import { startBuiltService, stopBuiltService } from '../support/built-service.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';

// Issue 52: everything a request starts (the upload body's pace check above all) ends with it,
// answered, refused, timed out or gone; nothing a client sends can raise an exception outside a
// request's own handling. The service runs as users run it (the built bin/, a child process),
// so an exception outside a request shows as what it is: the process exits (70).

const GRACE_MS = 1_000;
/** Every route that reads a large body under a pace check. */
const PACED_ROUTES = [
  '/v9/shipments/1/etickets',
  '/v9/shipments/1/transfer_verifications',
  '/v9/shipments/1/airbill',
  '/v9/shipments/1/reissue',
];

describe('what a request starts ends with it: the service survives every way a client can leave an upload', () => {
  let db: TestDatabase;
  let service: { child: ChildProcess; url: string; output: () => string };
  const exits: Array<number | null> = [];
  const prefix = testPrefix();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-lifetime-'));
  const key = randomBytes(32).toString('hex');

  beforeAll(async () => {
    db = await createTestDatabase();
    await seedDatabase(db.database, fixtureSchema.parse(baseFixture()), SecretBox.fromKey(key));
    service = await startBuiltService({
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      FULFIL_SECRET_KEY: key,
      DATA_DIR: dataDir,
      NODE_ENV: 'test',
      UPLOAD_BODY_GRACE_MS: String(GRACE_MS),
      UPLOAD_MIN_BYTES_PER_SECOND: '4096',
    });
    service.child.on('exit', (code) => exits.push(code));
  }, 90_000);
  afterAll(async () => {
    if (service?.child.exitCode === null) await stopBuiltService(service.child);
    await dropPrefix(prefix);
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  const port = () => Number(new URL(service.url).port);

  /**
   * A raw upload: the head (the seller's token, a signature the body never gets to be checked
   * against), then `body`; `after` says what the client does next: close its side, vanish
   * (reset), or stay connected and silent. Resolves with all the service sent and how it ended.
   */
  function rawUpload(
    route: string,
    contentLength: number,
    body: string,
    after: 'silent' | 'reset',
  ): { first: Promise<string>; answer: Promise<string>; close(): void } {
    const socket = connect(port(), '127.0.0.1');
    let received = '';
    const head =
      `POST ${route} HTTP/1.1\r\nhost: 127.0.0.1:${port()}\r\ncontent-type: application/json\r\n` +
      `content-length: ${contentLength}\r\nx-token: ${SELLER.token}\r\nx-signature: not-checked-before-the-body\r\n\r\n`;
    socket.write(head + body, () => {
      if (after === 'reset') socket.resetAndDestroy();
    });
    socket.on('error', () => {});
    const first = new Promise<string>((resolve) => {
      socket.once('data', (d) => resolve(String(d)));
      socket.once('close', () => resolve(received));
    });
    const answer = new Promise<string>((resolve) => {
      socket.on('data', (d) => (received += String(d)));
      socket.on('close', () => resolve(received));
    });
    return { first, answer, close: () => socket.destroy() };
  }

  /** The service answers, and has not exited: the proof that nothing escaped a request. */
  async function stillServing(): Promise<void> {
    const live = await fetch(new URL('/livez', service.url));
    expect(live.status).toBe(200);
    expect(exits).toEqual([]);
    expect(service.child.exitCode).toBeNull();
  }

  /** Past the moment a pace check that outlived its request would have fired, twice over. */
  const pastThePaceCheck = () => new Promise((r) => setTimeout(r, GRACE_MS * 2 + 2_500));

  it('413 on the Content-Length with 13 bytes sent, on every paced route: the pace check ends with the answer', async () => {
    const over = MAX_UPLOAD_REQUEST_BYTES + 1;
    const uploads = PACED_ROUTES.map((route) => rawUpload(route, over, '{"etickets":[', 'silent'));
    try {
      // The answer comes at once, before the body; the client then stays connected and silent.
      const answers = await Promise.all(uploads.map((u) => u.first));
      for (const a of answers) expect(a).toMatch(/^HTTP\/1\.1 413 /);
      expect(answers).toHaveLength(PACED_ROUTES.length);
      await pastThePaceCheck();
      await stillServing();
    } finally {
      for (const u of uploads) u.close();
    }
  }, 30_000);

  it('half a body, then the client vanishes (reset), on every paced route', async () => {
    const uploads = PACED_ROUTES.map((route) => rawUpload(route, 200_000, '{"etickets":[{"eticket":"' + 'A'.repeat(50_000), 'reset'));
    await Promise.all(uploads.map((u) => u.answer));
    await pastThePaceCheck();
    await stillServing();
  }, 30_000);

  it('half a body, then the client closes its side, on every paced route', async () => {
    const uploads = PACED_ROUTES.map((route) => {
      const socket = connect(port(), '127.0.0.1');
      socket.on('error', () => {});
      socket.resume(); // the answer is read (and dropped), so that the socket can end and close
      socket.end(
        `POST ${route} HTTP/1.1\r\nhost: 127.0.0.1:${port()}\r\ncontent-length: 1000\r\nx-token: ${SELLER.token}\r\nx-signature: x\r\n\r\n{"a":`,
      );
      return new Promise<void>((resolve) => socket.on('close', () => resolve()));
    });
    await Promise.all(uploads);
    await pastThePaceCheck();
    await stillServing();
  }, 30_000);

  it('a body too slow is answered 408; a client that then stays connected and silent is let go, on every paced route', async () => {
    const uploads = PACED_ROUTES.map((route) => rawUpload(route, 20 * 1024 * 1024, '{"etickets":[', 'silent'));
    try {
      // The service closes each connection after its 408: the answer promise settles on that close.
      const answers = await Promise.all(uploads.map((u) => u.answer));
      for (const a of answers) {
        expect(a).toMatch(/^HTTP\/1\.1 408 /);
        expect(a).toContain('"code":"request_timeout"');
      }
      await pastThePaceCheck();
      await stillServing();
    } finally {
      for (const u of uploads) u.close();
    }
  }, 30_000);

  it('after the whole run the service has exited zero times and logged no fatal line', async () => {
    await stillServing();
    expect(service.output()).not.toMatch(/exiting so that a supervisor restarts the process/);
    expect(service.output()).not.toMatch(/"origin":"uncaughtException"/);
  });
});
