import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FulfilmentClient } from '../../src/index.ts';
import eticketsHandler from '../../workers/shipment-etickets.ts';
import { apiClient } from '../support/api.ts';
import { baseFixture, BUYER, SELLER, STRANGER } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { deliveredThrice } from '../support/run-command.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { b64, encrypt, makeJpeg, makePdf, makePng, truncate } from '../support/test-files.ts';

// The e-ticket flow end to end against the real service (Postgres, Redis, BullMQ workers):
// upload → complete → the buyer downloads the very bytes; every bad input refused with nothing
// stored; the same upload twice is one set and one event. Orders have quantity 2.

const ORDER_IDS = Array.from({ length: 30 }, (_, i) => 900 + i);

describe('e-tickets', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let nextOrder = 0;
  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture(ORDER_IDS));
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const sql = () => t.db.database.sql!;
  const counts = async () => {
    const [row] =
      await sql()`select (select count(*) from stored_files)::int as files, (select count(*) from shipment_file_sets)::int as sets,
      (select count(*) from shipment_events where kind = 'etickets_uploaded')::int as events`;
    return row as unknown as { files: number; sets: number; events: number };
  };

  /** A new order accepted and turned into a pending shipment of `type`; answers the shipment id. */
  async function shipmentOf(type = 'Eticket'): Promise<number> {
    const orderId = ORDER_IDS[nextOrder++]!;
    const accepted = await call(SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: type });
    expect(updated.status).toBe(200);
    return updated.body.id;
  }

  const upload = (id: number, etickets: object[], cred = SELLER, headers: Record<string, string> = {}) =>
    call(cred, 'POST', `/v9/shipments/${id}/etickets`, { etickets }, headers);

  async function download(cred: typeof SELLER, path: string): Promise<{ status: number; bytes: Buffer; type: string | null }> {
    const res = await signedFetch(t.url, cred, 'GET', path);
    return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') };
  }

  it('upload → complete → the buyer lists and downloads byte-identical files; a stranger is told 404', async () => {
    const id = await shipmentOf();
    const early = await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {});
    expect(early.status).toBe(422);
    expect(early.body.errors[0].message).toMatch(/no e-tickets: upload them \(POST \/v9\/shipments\/\d+\/etickets\)/);

    const pdf = await makePdf(2);
    const up = await upload(id, [{ eticket: b64(pdf), seat: '12', barcode: 'BC-1' }]);
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ id, type: 'Eticket', state: 'pending' });
    expect(up.body.etickets).toEqual([
      {
        id: expect.any(Number),
        seat: '12',
        pages: 2,
        bytes: pdf.length,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        barcode: 'BC-1',
        url: `/v9/shipments/${id}/etickets/${up.body.etickets[0].id}`,
      },
    ]);

    const done = await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {});
    expect(done.status).toBe(200);
    expect(done.body.state).toBe('delivered');

    const list = await call(BUYER, 'GET', `/v9/shipments/${id}/etickets`);
    expect(list.status).toBe(200);
    expect(list.body.etickets).toEqual(up.body.etickets);
    expect(list.body.uploads).toHaveLength(1);
    expect(list.body.uploads[0].uploaded_by).toEqual({ brokerage_id: 1, user_id: null });

    const got = await download(BUYER, up.body.etickets[0].url);
    expect(got.status).toBe(200);
    expect(got.type).toBe('application/pdf');
    expect(got.bytes.equals(pdf)).toBe(true);
    expect((await download(STRANGER, up.body.etickets[0].url)).status).toBe(404);
    expect((await call(STRANGER, 'GET', `/v9/shipments/${id}/etickets`)).status).toBe(404);

    // The events carry the list and paths, never bytes.
    const events = await sql()`select kind, details from shipment_events where shipment_id = ${id} order by seq`;
    const uploaded = events.find((e) => e.kind === 'etickets_uploaded')!;
    expect(uploaded.details.etickets).toEqual(up.body.etickets);
    const completed = events.find((e) => e.kind === 'completed')!;
    expect(completed.details.etickets).toEqual(up.body.etickets);
    expect(JSON.stringify(events)).not.toContain(b64(pdf).slice(0, 40));

    // The buyer's view of the order's history carries the list, as webhooks and the feed do.
    const history = await call(
      BUYER,
      'GET',
      `/v9/orders/${(await sql()`select order_id from shipments where id = ${id}`)[0]!.order_id}/events`,
    );
    const seen = history.body.events.find((e: { kind: string }) => e.kind === 'etickets_uploaded');
    expect(seen.details.etickets).toEqual(up.body.etickets);

    // The operators' order view lists the files: pages, size, who uploaded them, when.
    const [{ order_id: orderId }] = (await sql()`select order_id from shipments where id = ${id}`) as unknown as [{ order_id: number }];
    const page = await (await fetch(`${t.url}/ops/orders/${orderId}`)).text();
    expect(page).toContain('<h2>Files (1)</h2>');
    expect(page).toMatch(
      new RegExp(
        `<td>${up.body.etickets[0].id}</td><td>application/pdf</td><td>2</td><td>${pdf.length}</td><td>12</td><td>BC-1</td><td>brokerage 1</td>`,
      ),
    );
  });

  it('one single-page PDF per ticket; a second upload replaces the set, whose files are listed but no longer served', async () => {
    const id = await shipmentOf();
    const [a, b] = [await makePdf(1, 'a'), await makePdf(1, 'b')];
    const first = await upload(id, [
      { eticket: b64(a), seat: '1' },
      { eticket: b64(b), seat: '2' },
    ]);
    expect(first.status).toBe(200);
    expect(first.body.etickets.map((e: { pages: number }) => e.pages)).toEqual([1, 1]);
    const whole = await makePdf(2, 'whole');
    const second = await upload(id, [{ eticket: b64(whole) }]);
    expect(second.status).toBe(200);
    const list = await call(BUYER, 'GET', `/v9/shipments/${id}/etickets`);
    expect(list.body.etickets).toEqual(second.body.etickets);
    expect(list.body.uploads.map((u: { replaced_at: string | null }) => u.replaced_at === null)).toEqual([false, true]);
    expect((await download(BUYER, first.body.etickets[0].url)).status).toBe(404);
    expect((await download(BUYER, second.body.etickets[0].url)).bytes.equals(whole)).toBe(true);
  });

  it('refuses every bad input with a clear error, storing nothing', async () => {
    const id = await shipmentOf();
    const before = await counts();
    const pdf2 = await makePdf(2);
    const cases: [string, object, number, RegExp][] = [
      ['renamed PNG', { etickets: [{ eticket: b64(makePng()) }] }, 400, /etickets\.0\.eticket: is not a PDF/],
      [
        'random bytes',
        { etickets: [{ eticket: b64(Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256))) }] },
        400,
        /is not a PDF/,
      ],
      ['truncated PDF', { etickets: [{ eticket: b64(truncate(pdf2)) }] }, 400, /truncated PDF/],
      ['encrypted PDF', { etickets: [{ eticket: b64(encrypt(pdf2)) }] }, 400, /encrypted PDF/],
      ['3 pages for 2 tickets', { etickets: [{ eticket: b64(await makePdf(3)) }] }, 400, /3 pages for an order of 2 tickets/],
      [
        'a 2-page PDF among several',
        { etickets: [{ eticket: b64(pdf2) }, { eticket: b64(await makePdf(1)) }] },
        400,
        /etickets\.0\.eticket: has 2 pages/,
      ],
      ['3 PDFs for 2 tickets', { etickets: [1, 2, 3].map(() => ({ eticket: b64(makePdfSync1) })) }, 400, /3 PDFs for an order of 2/],
      ['bad base64', { etickets: [{ eticket: 'JVBERi0xLjc*!!' }] }, 400, /is not base64/],
      ['no files', { etickets: [] }, 400, /at least one/],
      ['an unknown field', { etickets: [{ eticket: b64(pdf2), colour: 'red' }] }, 400, /unknown field/],
    ];
    for (const [name, body, status, message] of cases) {
      const res = await call(SELLER, 'POST', `/v9/shipments/${id}/etickets`, body);
      expect(res.status, name).toBe(status);
      expect(res.body.errors[0].message, name).toMatch(message);
    }
    expect(await counts()).toEqual(before);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    for (const reason of ['not_pdf', 'truncated', 'encrypted', 'page_count', 'bad_base64']) {
      expect(metrics).toMatch(new RegExp(`fulfil_file_uploads_refused_total\\{reason="${reason}"\\} [1-9]`));
    }
  });

  it('takes a PDF of the largest size, byte for byte', async () => {
    const id = await shipmentOf();
    const pdf = await makePdf(2, 'large', 10 * 1024 * 1024 - 4096);
    expect(pdf.length).toBeLessThanOrEqual(10 * 1024 * 1024);
    const up = await upload(id, [{ eticket: b64(pdf) }]);
    expect(up.status).toBe(200);
    expect((await download(BUYER, up.body.etickets[0].url)).bytes.equals(pdf)).toBe(true);
  });

  it('413 for a file over 10 MiB and for a body over 25 MiB, nothing stored', async () => {
    const id = await shipmentOf();
    const before = await counts();
    const big = Buffer.alloc(10 * 1024 * 1024 + 10, 65);
    const file = await upload(id, [{ eticket: b64(big) }]);
    expect(file.status).toBe(413);
    expect(file.body.errors[0].message).toMatch(/at most 10485760 bytes/);
    const body = await upload(
      id,
      [1, 2, 3].map(() => ({ eticket: b64(Buffer.alloc(9 * 1024 * 1024, 66)) })),
    );
    expect(body.status).toBe(413);
    expect(await counts()).toEqual(before);
  });

  it('wrong type or state, another brokerage, a buyer: refused before anything is stored', async () => {
    const pdf = b64(await makePdf(2));
    const before = await counts();
    const mobile = await shipmentOf('XMobile');
    const wrongType = await upload(mobile, [{ eticket: pdf }]);
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.errors[0].message).toMatch(/is XMobile: e-tickets are uploaded to an Eticket shipment/);
    const id = await shipmentOf();
    expect((await upload(id, [{ eticket: pdf }], STRANGER)).status).toBe(404);
    const buyer = await upload(id, [{ eticket: pdf }], BUYER);
    expect(buyer.status).toBe(403);
    expect(buyer.body.errors[0].message).toBe('only the seller may upload e-tickets');
    expect(await counts()).toEqual(before);
    // Delivered: uploaded and completed, then another upload.
    expect((await upload(id, [{ eticket: pdf }])).status).toBe(200);
    expect((await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {})).status).toBe(200);
    const late = await upload(id, [{ eticket: b64(await makePdf(2, 'late')) }]);
    expect(late.status).toBe(422);
    expect(late.body.errors[0].message).toMatch(/is delivered/);
  });

  it('the same upload twice at once: one set, one event; a retried command (Idempotency-Key) stores nothing twice', async () => {
    const id = await shipmentOf();
    const etickets = [{ eticket: b64(await makePdf(2, 'twice')), seat: '7' }];
    const before = await counts();
    const [x, y] = await Promise.all([upload(id, etickets), upload(id, etickets)]);
    expect([x.status, y.status]).toEqual([200, 200]);
    expect(x.body.etickets).toEqual(y.body.etickets);
    const after = await counts();
    expect(after).toEqual({ files: before.files + 1, sets: before.sets + 1, events: before.events + 1 });

    const key = { 'idempotency-key': `etickets-${id}` };
    const other = [{ eticket: b64(await makePdf(2, 'keyed')) }];
    const first = await upload(id, other, SELLER, key);
    const replay = await upload(id, other, SELLER, key);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('x-command-id')).toBe(first.headers.get('x-command-id'));
    expect(await counts()).toEqual({ files: after.files + 1, sets: after.sets + 1, events: after.events + 1 });
  });

  it('a one-time link downloads once, without credentials', async () => {
    const id = await shipmentOf();
    const pdf = await makePdf(2, 'link');
    const up = await upload(id, [{ eticket: b64(pdf) }]);
    const link = await call(BUYER, 'POST', `/v9/shipments/${id}/etickets/link`, {});
    expect(link.status).toBe(201);
    expect(link.body).toEqual({
      url: expect.stringMatching(/^http:\/\/[^/]+\/eticket_downloads\/[A-Za-z0-9_-]{43}$/),
      eticket_id: up.body.etickets[0].id,
      expires_at: expect.any(String),
      livemode: true,
    });
    const path = new URL(link.body.url).pathname;
    // What a mail or chat scanner does before the person clicks: HEAD and GET use nothing up.
    expect((await fetch(new URL(path, t.url), { method: 'HEAD' })).status).toBe(200);
    const page = await fetch(new URL(path, t.url));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'.*form-action 'self'.*frame-ancestors 'none'/);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const text = await page.text();
    expect(text).toContain('<form method="post">');
    expect(text).toContain('2 pages');
    expect(text).toContain(`until ${link.body.expires_at.replace('T', ' ').slice(0, 16)} UTC`);
    expect(text).not.toMatch(/<script/i);
    // The page's button: a form post, empty and urlencoded, as a browser sends it.
    const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' } };
    const once = await fetch(new URL(path, t.url), form);
    expect(once.status).toBe(200);
    expect(once.headers.get('content-type')).toBe('application/pdf');
    expect(once.headers.get('content-disposition')).toMatch(/^attachment; /);
    expect(once.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await once.arrayBuffer()).equals(pdf)).toBe(true);
    const twice = await fetch(new URL(path, t.url), form);
    expect(twice.status).toBe(404);
    expect(await twice.text()).toContain('This link does not work');
    expect((await fetch(new URL(path, t.url))).status).toBe(404);
    const api = await fetch(new URL(path, t.url), { method: 'POST' });
    expect(api.status).toBe(404);
    expect(((await api.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('not_found');
    expect((await fetch(new URL('/eticket_downloads/' + 'A'.repeat(43), t.url), { method: 'POST' })).status).toBe(404);
    expect((await call(STRANGER, 'POST', `/v9/shipments/${id}/etickets/link`, {})).status).toBe(404);
    const [stored] = await sql()`select count(*)::int as n from file_links where token_sha256 = ${path.split('/').pop()!}`;
    expect(stored!.n).toBe(0);
  });

  it('proof of transfer: images and a PDF checked and stored; listed to both parties; an event', async () => {
    const id = await shipmentOf('XMobile');
    const png = makePng(64, 48);
    const res = await call(SELLER, 'POST', `/v9/shipments/${id}/transfer_verifications`, {
      files: [{ file: b64(png), note: 'sent to bo@example.test' }, { file: b64(makeJpeg(32, 16)) }, { file: b64(await makePdf(1)) }],
    });
    expect(res.status).toBe(200);
    expect(
      res.body.files.map((f: { media_type: string; width: number | null; height: number | null; pages: number | null }) => [
        f.media_type,
        f.width,
        f.height,
        f.pages,
      ]),
    ).toEqual([
      ['image/png', 64, 48, null],
      ['image/jpeg', 32, 16, null],
      ['application/pdf', null, null, 1],
    ]);
    const list = await call(BUYER, 'GET', `/v9/shipments/${id}/transfer_verifications`);
    // The answer says its mode at its top; the list says it once, beside the proofs.
    const { livemode, ...proof } = res.body;
    expect([livemode, list.body.livemode]).toEqual([true, true]);
    expect(list.body.transfer_verifications).toEqual([proof]);
    const got = await download(BUYER, res.body.files[0].url);
    expect(got.type).toBe('image/png');
    expect(got.bytes.equals(png)).toBe(true);
    const bad = await call(SELLER, 'POST', `/v9/shipments/${id}/transfer_verifications`, {
      files: [{ file: b64(Buffer.from('GIF89a not really')) }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toMatch(/files\.0\.file: is neither a PNG nor a JPEG image, nor a PDF/);
    const corrupt = makePng();
    corrupt[40] = corrupt[40]! ^ 0xff;
    expect((await call(SELLER, 'POST', `/v9/shipments/${id}/transfer_verifications`, { files: [{ file: b64(corrupt) }] })).status).toBe(
      400,
    );
    const eticket = await shipmentOf();
    expect((await call(SELLER, 'POST', `/v9/shipments/${eticket}/transfer_verifications`, { files: [{ file: b64(png) }] })).status).toBe(
      422,
    );
    const [event] = await sql()`select details from shipment_events where shipment_id = ${id} and kind = 'transfer_verified'`;
    expect(event!.details.transfer_verification.files).toHaveLength(3);
  });

  it('barcode completion for any type: a ticket per seat with one of barcode, primary_ticket_id, verification_id; transfer_source from the list', async () => {
    const id = await shipmentOf('XMobile');
    const refusals: [object, RegExp][] = [
      [
        {
          tickets: [
            { seat: '1', barcode: 'A', primary_ticket_id: 'P' },
            { seat: '2', barcode: 'B' },
          ],
        },
        /tickets\.0: give exactly one of barcode, primary_ticket_id, verification_id/,
      ],
      [{ tickets: [{ seat: '1', barcode: 'A' }] }, /tickets: 1 given for an order of 2/],
      [{ transfer_source: 'myspace' }, /transfer_source: must be one of AXS, TM, SG/],
    ];
    for (const [body, message] of refusals) {
      const res = await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors[0].message).toMatch(message);
    }
    const tickets = [
      { seat: '1', barcode: '0123456789' },
      { seat: '2', primary_ticket_id: 'TM-778' },
    ];
    const done = await call(SELLER, 'PUT', `/v9/shipments/${id}/complete`, { tickets, transfer_source: 'AXS' });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ id, url: `/shipments/${id}`, type: 'XMobile', state: 'delivered', tickets, livemode: true });
    const [row] = await sql()`select transfer_source from shipments where id = ${id}`;
    expect(row!.transfer_source).toBe('AXS');
    const [event] = await sql()`select details from shipment_events where shipment_id = ${id} and kind = 'completed'`;
    expect(event!.details).toEqual({ tickets, transfer_source: 'AXS' });

    // An Eticket shipment takes barcodes too, beside its files.
    const eticket = await shipmentOf();
    await upload(eticket, [{ eticket: b64(await makePdf(2, 'barcodes')) }]);
    const withCodes = await call(SELLER, 'PUT', `/v9/shipments/${eticket}/complete`, {
      tickets: [
        { seat: 'A', verification_id: 'v1' },
        { seat: 'B', barcode: 'b2' },
      ],
      transfer_source: 'ticketmaster',
    });
    expect(withCodes.status).toBe(200);
    const [completed] = await sql()`select details from shipment_events where shipment_id = ${eticket} and kind = 'completed'`;
    expect(completed!.details.transfer_source).toBe('TM');
    expect(completed!.details.etickets).toHaveLength(1);
  });

  it('the producer client attaches files the service stores, by hash, with typed answers; unknown hashes are refused', async () => {
    const pdf = await makePdf(2, 'client');
    const first = await shipmentOf();
    const up = await upload(first, [{ eticket: b64(pdf) }]);
    const second = await shipmentOf();
    const client = new FulfilmentClient({ redisUrl: t.config.REDIS_URL, prefix: t.prefix, defaultTimeoutMs: 15_000 });
    try {
      const seller = { brokerageId: 1, await: true } as const;
      const attached = await client.attachEtickets(
        { shipment_id: second, etickets: [{ sha256: up.body.etickets[0].sha256, seat: '9' }] },
        seller,
      );
      expect(attached.status).toBe(200);
      if (attached.status === 200) expect(attached.body.etickets[0]).toMatchObject({ seat: '9', pages: 2, bytes: pdf.length });
      const unknown = await client.attachEtickets({ shipment_id: second, etickets: [{ sha256: 'f'.repeat(64) }] }, seller);
      expect(unknown.status).toBe(400);
    } finally {
      await client.close();
    }
    expect(
      (
        await download(
          BUYER,
          `/v9/shipments/${second}/etickets/${(await call(BUYER, 'GET', `/v9/shipments/${second}/etickets`)).body.etickets[0].id}`,
        )
      ).bytes.equals(pdf),
    ).toBe(true);
  });

  it('a command delivered again (a retry, a second worker) attaches once: one set, one event, the same answer', async () => {
    const id = await shipmentOf();
    const other = await shipmentOf();
    // The files are stored by an upload elsewhere; the command names them by hash.
    const stored = await upload(other, [{ eticket: b64(await makePdf(2, 'retried')) }]);
    const envelope = {
      commandId: `c-retry-${id}`,
      actor: { brokerageId: 1, userId: null, via: 'upstream' as const },
      requestHash: 'retry',
      payload: { shipment_id: id, etickets: [{ sha256: stored.body.etickets[0].sha256 }] },
    };
    const before = await counts();
    await deliveredThrice(t.db.database, eticketsHandler, envelope);
    expect(await counts()).toEqual({ files: before.files, sets: before.sets + 1, events: before.events + 1 });
  });
});

let makePdfSync1: Buffer;
beforeAll(async () => {
  makePdfSync1 = await makePdf(1, 'one');
});
