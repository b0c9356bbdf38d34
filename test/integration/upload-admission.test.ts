import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { apiClient, type ApiResponse } from '../support/api.ts';
import { baseFixture, BUYER, SELLER, SELLER_USER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { b64, makeBombPdf, makeLargePng, makePdf } from '../support/test-files.ts';
import { until } from '../support/webhook-receiver.ts';
import { holdLock } from '../support/hold-lock.ts';

// Admission to the upload routes, as an attacker and a careless client would try it (issue 43):
// two upload slots, one per credential; a command held on the order's lock keeps an upload
// unanswered, which is when its slot must still be held.

const ORDER_IDS = Array.from({ length: 12 }, (_, i) => 900 + i);

describe('upload admission and the cost of a file', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let next = 0;
  const logLines: string[] = [];
  const port = () => Number(new URL(t.url).port);

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    t = await startTestService({
      log: createLogger('info', {}, sink),
      env: {
        UPLOAD_CONCURRENCY: '2',
        UPLOAD_QUEUE_MS: '500',
        UPLOAD_BODY_GRACE_MS: '1000',
        UPLOAD_MIN_BYTES_PER_SECOND: '4096',
        COMMAND_WAIT_MS: '2500',
      },
    });
    await t.seed(baseFixture(ORDER_IDS));
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const sql = () => t.db.database.sql!;
  const storedFiles = async () => ((await sql()`select count(*)::int as n from stored_files`)[0] as unknown as { n: number }).n;
  const slotsInUse = async () => {
    const text = await (await fetch(new URL('/metrics', t.url))).text();
    return Number(/^fulfil_upload_slots_in_use (\d+)/m.exec(text)?.[1]);
  };

  async function eticketShipment(): Promise<{ id: number; orderId: number }> {
    const orderId = ORDER_IDS[next++]!;
    const accepted = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'Eticket' });
    expect(updated.status).toBe(200);
    return { id: updated.body.id, orderId };
  }

  /** The order's row locked by a connection of the test's own: the upload's command waits, its answer with it. */
  const lockOrder = (orderId: number) => holdLock(t.db.url, 'select 1 from orders where id = $1 for update', [orderId]);

  /** A raw connection that sends the head of an upload and then drips its body, a few bytes at a time. */
  function drip(
    headers: Record<string, string>,
    bytesPerTick = 4,
    tickMs = 250,
  ): { socket: Socket; answer: Promise<string>; stop(): void } {
    const socket = connect(port(), '127.0.0.1');
    let received = '';
    const head = Object.entries({
      host: `127.0.0.1:${port()}`,
      'content-type': 'application/json',
      'content-length': '20971520',
      ...headers,
    })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(`POST /v9/shipments/1/etickets HTTP/1.1\r\n${head}\r\n`);
    const timer = setInterval(() => socket.writable && socket.write('x'.repeat(bytesPerTick)), tickMs);
    const answer = new Promise<string>((resolve) => {
      socket.on('data', (d) => (received += String(d)));
      socket.on('error', () => {});
      socket.on('close', () => {
        clearInterval(timer);
        resolve(received);
      });
    });
    return {
      socket,
      answer,
      stop() {
        clearInterval(timer);
        socket.destroy();
      },
    };
  }

  it('unauthenticated callers are refused on their headers and never hold an upload slot', async () => {
    const drips = [drip({}), drip({ 'x-token': 'A'.repeat(32), 'x-signature': 'x' }), drip({ 'x-token': SELLER.token })];
    try {
      const answers = await Promise.all(drips.map((d) => d.answer));
      for (const a of answers) expect(a).toMatch(/^HTTP\/1\.1 401 /);
      expect(answers[0]).toContain('missing credentials');
      expect(answers[1]).toContain('invalid credentials');
      expect(answers[2]).toContain('no X-Signature header');
      // Every slot is free: two sellers' uploads go through at once.
      const [a, b] = await Promise.all([eticketShipment(), eticketShipment()]);
      const pdf = b64(await makePdf(2));
      const [ra, rb] = await Promise.all([
        call(SELLER, 'POST', `/v9/shipments/${a.id}/etickets`, { etickets: [{ eticket: pdf }] }),
        call(SELLER_USER, 'POST', `/v9/shipments/${b.id}/etickets`, { etickets: [{ eticket: pdf }] }),
      ]);
      expect([ra.status, rb.status]).toEqual([200, 200]);
    } finally {
      for (const d of drips) d.stop();
    }
  });

  it('a slot is held until the upload is answered, not until its body is read; one credential holds at most its share', async () => {
    const [a, b] = [await eticketShipment(), await eticketShipment()];
    const lock = await lockOrder(a.orderId);
    // Bytes no earlier test stored: the file store's new row tells when the upload is past its checks.
    const pdf = b64(await makePdf(2, 'held while its command waits'));
    try {
      // The seller's upload is read, checked and stored; its command waits on the lock.
      const filesBefore = await storedFiles();
      const held = call(SELLER, 'POST', `/v9/shipments/${a.id}/etickets`, { etickets: [{ eticket: pdf }] });
      await until('the upload read, checked and stored; its command waiting', async () => (await storedFiles()) > filesBefore, 10_000);
      // The same credential's second upload waits for its share and is refused after UPLOAD_QUEUE_MS.
      const second = await call(SELLER, 'POST', `/v9/shipments/${b.id}/etickets`, { etickets: [{ eticket: pdf }] });
      expect(second.status).toBe(503);
      expect(await slotsInUse()).toBe(1);
      expect(second.headers.get('retry-after')).toBe('2');
      expect(second.body.errors[0].message).toMatch(/this credential already has 1 upload\(s\) in progress/);
      // Another credential is admitted to the other slot (and refused by the shipment's rules: the buyer).
      const other = await call(BUYER, 'POST', `/v9/shipments/${b.id}/etickets`, { etickets: [{ eticket: pdf }] });
      expect(other.status).toBe(403);
      const answered: ApiResponse = await held;
      expect(answered.status).toBe(202);
    } finally {
      await lock.release();
    }
    await until('the slot given back once answered', async () => (await slotsInUse()) === 0, 5_000);
    expect((await call(SELLER, 'POST', `/v9/shipments/${b.id}/etickets`, { etickets: [{ eticket: pdf }] })).status).toBe(200);
  });

  it('a body slower than the minimum rate is cut off with 408 and frees its slot; nothing is stored', async () => {
    const before = await storedFiles();
    const slow = drip({ 'x-token': SELLER.token, 'x-signature': 'signed-over-the-body-later' }, 16, 500);
    const answer = await slow.answer;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain('"code":"request_timeout"');
    expect(answer).toMatch(/slower than 4096 bytes a second/);
    expect(await slotsInUse()).toBe(0);
    expect(await storedFiles()).toBe(before);
    const metrics = await (await fetch(new URL('/metrics', t.url))).text();
    expect(metrics).toMatch(/fulfil_file_uploads_refused_total\{reason="body_too_slow"\} [1-9]/);
    expect(metrics).toMatch(/fulfil_file_uploads_refused_total\{reason="unauthenticated"\} [1-9]/);
  });

  it('a decompression bomb and a 16-bit 16-megapixel PNG are refused by their bounds, nothing stored', async () => {
    const { id } = await eticketShipment();
    const before = await storedFiles();
    const bomb = await call(SELLER, 'POST', `/v9/shipments/${id}/etickets`, {
      etickets: [{ eticket: b64(await makeBombPdf(64 * 1024 * 1024)) }],
    });
    expect(bomb.status).toBe(400);
    expect(bomb.body.errors[0].message).toMatch(/compressed streams inflate to more than 2097152 bytes; refused as a decompression bomb/);
    const mobile = await eticketShipment();
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${mobile.id}`, { mobile_transfer_type: 'XMobile' });
    expect(updated.status).toBe(200);
    const png = await call(SELLER, 'POST', `/v9/shipments/${updated.body.id}/transfer_verifications`, {
      files: [{ file: b64(await makeLargePng(4000, 4000, 16)) }],
    });
    expect(png.status).toBe(400);
    expect(png.body.errors[0].message).toMatch(/pixels take more than 64 MiB \(4000×4000, 64 bits a pixel\)/);
    expect(await storedFiles()).toBe(before);
  });

  it('a 413 names the limit of the route that refused it', async () => {
    const { id } = await eticketShipment();
    const big = await call(SELLER, 'POST', `/v9/shipments/${id}/etickets`, {
      etickets: [1, 2, 3].map(() => ({ eticket: b64(Buffer.alloc(9 * 1024 * 1024, 66)) })),
    });
    expect(big.status).toBe(413);
    expect(big.body.errors[0].message).toBe('request body is larger than 25 MiB, the limit of this route');
    const small = await call(SELLER, 'PUT', `/v9/shipments/${id}`, { notes: 'x'.repeat(70 * 1024) });
    expect(small.status).toBe(413);
    expect(small.body.errors[0].message).toBe('request body is larger than 64 KiB, the limit of this route');
  });

  it("a one-time link's token never reaches a log line: its hash's prefix does", async () => {
    const { id } = await eticketShipment();
    expect((await call(SELLER, 'POST', `/v9/shipments/${id}/etickets`, { etickets: [{ eticket: b64(await makePdf(2)) }] })).status).toBe(
      200,
    );
    const link = await call(BUYER, 'POST', `/v9/shipments/${id}/etickets/link`, {});
    const path = new URL(link.body.url).pathname;
    const token = path.split('/').pop()!;
    logLines.length = 0;
    expect((await fetch(new URL(path, t.url), { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(new URL(path, t.url))).status).toBe(200);
    expect((await fetch(new URL(path, t.url), { method: 'POST' })).status).toBe(200);
    expect((await fetch(new URL(path, t.url), { method: 'POST' })).status).toBe(404);
    expect((await fetch(new URL(`${path}/x`, t.url))).status).toBe(404);
    await until('the request lines logged', async () => logLines.some((l) => l.includes('e-ticket downloaded')), 5_000);
    expect(logLines.length).toBeGreaterThan(5);
    expect(logLines.filter((l) => l.includes(token))).toEqual([]);
    const { linkTokenHint } = await import('../../src/link-tokens.ts');
    expect(logLines.filter((l) => l.includes(`/eticket_downloads/${linkTokenHint(token)}`)).length).toBeGreaterThan(3);
  });
});

describe('an upload whose client goes away while it waits for a slot', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    // A long queue deadline: the slot frees while the gone client would still be waiting.
    t = await startTestService({ env: { UPLOAD_CONCURRENCY: '2', UPLOAD_QUEUE_MS: '20000', COMMAND_WAIT_MS: '10000' } });
    await t.seed(baseFixture([950, 951, 952]));
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const gauge = async (name: string) => {
    const text = await (await fetch(new URL('/metrics', t.url))).text();
    return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1]);
  };

  it('leaves the queue at once, so the slot it would have been given is not lost', async () => {
    const shipments: number[] = [];
    for (const orderId of [950, 951]) {
      const accepted = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
      const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'Eticket' });
      shipments.push(updated.body.id);
    }
    const stored = async () => ((await t.db.database.sql!`select count(*)::int as n from stored_files`)[0] as unknown as { n: number }).n;
    const lock = await holdLock(t.db.url, 'select 1 from orders where id = $1 for update', [950]);
    const before = await stored();
    const pdf = b64(await makePdf(2, 'held while another waits'));
    const held = call(SELLER, 'POST', `/v9/shipments/${shipments[0]}/etickets`, { etickets: [{ eticket: pdf }] });
    await until('the first upload past its checks', async () => (await stored()) > before, 10_000);
    // The same credential again, from a socket that will not stay: it waits for the credential's share.
    const port = Number(new URL(t.url).port);
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `POST /v9/shipments/${shipments[1]}/etickets HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
        `content-length: 100\r\nx-token: ${SELLER.token}\r\nx-signature: x\r\n\r\n`,
    );
    await until('the second upload waiting for a slot', async () => (await gauge('fulfil_upload_waiting')) === 1, 10_000);
    socket.destroy();
    await until('the gone client out of the queue', async () => (await gauge('fulfil_upload_waiting')) === 0, 5_000);
    await lock.release();
    expect([200, 202]).toContain((await held).status);
    await until('every slot given back', async () => (await gauge('fulfil_upload_slots_in_use')) === 0, 10_000);
    const next = await call(SELLER, 'POST', `/v9/shipments/${shipments[1]}/etickets`, { etickets: [{ eticket: pdf }] });
    expect(next.status).toBe(200);
  });
});
