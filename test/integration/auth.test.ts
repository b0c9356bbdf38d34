import { createHmac } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredential, revokeCredential } from '../../src/auth/credentials.ts';
import { baseFixture, BUYER, SELLER, SELLER_USER, STRANGER } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

const MISSING = { errors: [{ code: 'unauthorized', message: 'missing credentials' }] };
const INVALID = { errors: [{ code: 'unauthorized', message: 'invalid credentials' }] };
const JSON_TYPE = 'application/json; charset=utf-8';

const sign = (secret: string, s: string | Buffer) => createHmac('sha256', secret).update(s).digest('base64');

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: unknown;
}

/**
 * node:http rather than fetch: these cases need the exact bytes and headers on the wire (no
 * Content-Type added for us, a query not re-encoded, an explicit Host).
 */
function rawRequest(
  base: string,
  opts: { method: string; target: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method: opts.method, path: opts.target, headers: opts.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.end(opts.body);
    else req.end();
  });
}

describe('signed requests (docs/API.md §Signature)', () => {
  let t: TestService;
  let port: string;
  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture());
    port = new URL(t.url).port;
  });
  afterAll(async () => {
    await t?.stop();
  });

  describe('valid credentials', () => {
    it('an api credential is answered with its identity, never its secret', async () => {
      const res = await signedFetch(t.url, SELLER, 'GET', '/v9/credentials/current');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(JSON_TYPE);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ token: SELLER.token, kind: 'api', livemode: true, brokerage_id: 1, user_id: null });
      expect(text).not.toContain(SELLER.secret);
    });

    it('a user credential acts for its brokerage', async () => {
      const res = await signedFetch(t.url, SELLER_USER, 'GET', '/v9/credentials/current');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ token: SELLER_USER.token, kind: 'user', livemode: true, brokerage_id: 1, user_id: 100 });
    });

    it('each brokerage sees its own credential', async () => {
      for (const [cred, brokerage] of [
        [BUYER, 2],
        [STRANGER, 3],
      ] as const) {
        const res = await signedFetch(t.url, cred, 'GET', '/v9/credentials/current');
        expect(await res.json()).toMatchObject({ token: cred.token, brokerage_id: brokerage });
      }
    });

    it('a credential created at run time (random secret with + / characters) works', async () => {
      const created = await createCredential(t.db.database.db, t.service.secretBox, { brokerageId: 2 });
      const res = await signedFetch(t.url, created, 'GET', '/v9/credentials/current');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ token: created.token, kind: 'api', livemode: true, brokerage_id: 2, user_id: null });
    });

    it('POST and PUT with a JSON body sign the body', async () => {
      for (const method of ['POST', 'PUT']) {
        const res = await signedFetch(t.url, SELLER, method, '/v9/credentials/current/verify', { one: 1, two: 'two' });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ ok: true });
      }
    });

    it('a query on a GET is signed (signedFetch sends the canonical form)', async () => {
      const res = await signedFetch(t.url, SELLER, 'GET', '/v9/credentials/current?z=1&page[items]=2&page[cursor]=1');
      expect(res.status).toBe(200);
    });
  });

  describe('compatibility forms', () => {
    const raw = 'state=ALL&page[items]=2&page[cursor]=1&office_id=10';
    const path = '/v9/credentials/current';
    const get = (signature: string, headers: Record<string, string> = {}) =>
      rawRequest(t.url, {
        method: 'GET',
        target: `${path}?${raw}`,
        headers: { 'x-token': SELLER.token, 'x-signature': signature, ...headers },
      });

    it.each([
      ['sorted canonical', 'office_id=10&page%5Bcursor%5D=1&page%5Bitems%5D=2&state=ALL'],
      ['stable-sorted by top-level name (page[...] in received order)', 'office_id=10&page%5Bitems%5D=2&page%5Bcursor%5D=1&state=ALL'],
      ['raw query as received', raw],
    ])('accepts the %s query', async (_name, rest) => {
      const res = await get(sign(SELLER.secret, `GET 127.0.0.1${path}?${rest}`));
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ token: SELLER.token });
    });

    it('refuses a form that is not accepted: received order, encoded, unsorted', async () => {
      const res = await get(sign(SELLER.secret, `GET 127.0.0.1${path}?page%5Bitems%5D=2&page%5Bcursor%5D=1&state=ALL&office_id=10`));
      expect(res.status).toBe(401);
      expect(res.json).toEqual(INVALID);
    });

    it('accepts the host with its port', async () => {
      const res = await get(
        sign(SELLER.secret, `GET 127.0.0.1:${port}${path}?office_id=10&page%5Bcursor%5D=1&page%5Bitems%5D=2&state=ALL`),
      );
      expect(res.status).toBe(200);
    });

    it('signs the host the client used (Host header), not the address it reached', async () => {
      const rest = 'office_id=10&page%5Bcursor%5D=1&page%5Bitems%5D=2&state=ALL';
      const res = await get(sign(SELLER.secret, `GET api.client.test${path}?${rest}`), { host: `api.client.test:${port}` });
      expect(res.status).toBe(200);
      const wrong = await get(sign(SELLER.secret, `GET 127.0.0.1${path}?${rest}`), { host: `api.client.test:${port}` });
      expect(wrong.status).toBe(401);
    });

    it('accepts PUBLIC_HOST when configured, and only then; with it, only its names verify', async () => {
      const publicHost = 'api.fulfil.test';
      const signature = sign(SELLER.secret, `GET ${publicHost}${path}?`);
      const before = await rawRequest(t.url, {
        method: 'GET',
        target: path,
        headers: { 'x-token': SELLER.token, 'x-signature': signature },
      });
      expect(before.status).toBe(401);

      const proxied = await startTestService({
        db: t.db,
        roles: { api: true, worker: false },
        env: { PUBLIC_HOST: `${publicHost}, api2.fulfil.test` },
      });
      try {
        const res = await rawRequest(proxied.url, {
          method: 'GET',
          target: path,
          headers: { 'x-token': SELLER.token, 'x-signature': signature },
        });
        expect(res.status).toBe(200);
        expect(res.json).toMatchObject({ token: SELLER.token });
        const second = sign(SELLER.secret, `GET api2.fulfil.test${path}?`);
        expect(
          (await rawRequest(proxied.url, { method: 'GET', target: path, headers: { 'x-token': SELLER.token, 'x-signature': second } }))
            .status,
        ).toBe(200);
        // Pinned: a signature for the address reached, or for any name sent as Host, is refused.
        expect((await signedFetch(proxied.url, SELLER, 'GET', path)).status).toBe(401);
        const chosen = sign(SELLER.secret, `GET evil.example.net${path}?`);
        const spoofed = await rawRequest(proxied.url, {
          method: 'GET',
          target: path,
          headers: { host: 'evil.example.net', 'x-token': SELLER.token, 'x-signature': chosen },
        });
        expect(spoofed.status).toBe(401);
      } finally {
        await proxied.stop();
      }
    });
  });

  describe('refused requests: 401 in the contract shape', () => {
    const path = '/v9/credentials/current';
    const expectRefused = async (res: Response | RawAnswer, body: unknown) => {
      expect(res.status).toBe(401);
      if (res instanceof Response) {
        expect(res.headers.get('content-type')).toBe(JSON_TYPE);
        expect(await res.json()).toEqual(body);
      } else {
        expect(res.headers['content-type']).toBe(JSON_TYPE);
        expect(res.json).toEqual(body);
      }
    };

    it('wrong secret', async () => {
      await expectRefused(await signedFetch(t.url, { token: SELLER.token, secret: BUYER.secret }, 'GET', path), INVALID);
    });

    it('another credential’s secret for a token (user token, api secret of the same brokerage)', async () => {
      await expectRefused(await signedFetch(t.url, { token: SELLER_USER.token, secret: SELLER.secret }, 'GET', path), INVALID);
    });

    it('wrong method', async () => {
      const signature = sign(SELLER.secret, `POST 127.0.0.1${path}?`);
      await expectRefused(
        await rawRequest(t.url, { method: 'GET', target: path, headers: { 'x-token': SELLER.token, 'x-signature': signature } }),
        INVALID,
      );
    });

    it('wrong path', async () => {
      const signature = sign(SELLER.secret, 'GET 127.0.0.1/v9/credentials/other?');
      await expectRefused(
        await rawRequest(t.url, { method: 'GET', target: path, headers: { 'x-token': SELLER.token, 'x-signature': signature } }),
        INVALID,
      );
    });

    it('tampered query', async () => {
      const signature = sign(SELLER.secret, `GET 127.0.0.1${path}?office_id=10`);
      const ok = await rawRequest(t.url, {
        method: 'GET',
        target: `${path}?office_id=10`,
        headers: { 'x-token': SELLER.token, 'x-signature': signature },
      });
      expect(ok.status).toBe(200);
      await expectRefused(
        await rawRequest(t.url, {
          method: 'GET',
          target: `${path}?office_id=20`,
          headers: { 'x-token': SELLER.token, 'x-signature': signature },
        }),
        INVALID,
      );
      await expectRefused(
        await rawRequest(t.url, {
          method: 'GET',
          target: `${path}?office_id=10&x=1`,
          headers: { 'x-token': SELLER.token, 'x-signature': signature },
        }),
        INVALID,
      );
    });

    it('tampered body', async () => {
      const signed = '{"reviewer_id":100}';
      const signature = sign(SELLER.secret, `POST 127.0.0.1${path}/verify?${signed}`);
      const send = (body: string) =>
        rawRequest(t.url, {
          method: 'POST',
          target: `${path}/verify`,
          headers: { 'x-token': SELLER.token, 'x-signature': signature, 'content-type': 'application/json' },
          body,
        });
      expect((await send(signed)).status).toBe(200);
      await expectRefused(await send('{"reviewer_id":101}'), INVALID);
      // Same JSON value, other bytes: the signature covers the bytes.
      await expectRefused(await send('{ "reviewer_id": 100 }'), INVALID);
    });

    it('a body signature does not verify the same text moved into the query of a request without body', async () => {
      const signed = '{"reviewer_id":100}';
      const signature = sign(SELLER.secret, `POST 127.0.0.1${path}/verify?${signed}`);
      const headers = { 'x-token': SELLER.token, 'x-signature': signature };
      const asBody = await rawRequest(t.url, { method: 'POST', target: `${path}/verify`, headers, body: signed });
      expect(asBody.status).toBe(200);
      await expectRefused(await rawRequest(t.url, { method: 'POST', target: `${path}/verify?${signed}`, headers }), INVALID);
      await expectRefused(await rawRequest(t.url, { method: 'POST', target: `${path}/verify?${encodeURI(signed)}`, headers }), INVALID);
    });

    it('missing X-Token', async () => {
      const signature = sign(SELLER.secret, `GET 127.0.0.1${path}?`);
      // One header alone is refused, and the answer names the one missing (e.g. one Authorize box of /docs filled).
      await expectRefused(await rawRequest(t.url, { method: 'GET', target: path, headers: { 'x-signature': signature } }), {
        errors: [{ code: 'unauthorized', message: 'missing credentials: no X-Token header (send X-Token and X-Signature)' }],
      });
    });

    it('missing X-Signature', async () => {
      await expectRefused(await rawRequest(t.url, { method: 'GET', target: path, headers: { 'x-token': SELLER.token } }), {
        errors: [{ code: 'unauthorized', message: 'missing credentials: no X-Signature header (send X-Token and X-Signature)' }],
      });
    });

    it('no credentials at all, and empty headers', async () => {
      await expectRefused(await rawRequest(t.url, { method: 'GET', target: path }), MISSING);
      await expectRefused(await rawRequest(t.url, { method: 'GET', target: path, headers: { 'x-token': '', 'x-signature': '' } }), MISSING);
    });

    it('unknown token (well-formed and malformed)', async () => {
      await expectRefused(
        await signedFetch(t.url, { token: 'UnknownToken00000000000000000009', secret: SELLER.secret }, 'GET', path),
        INVALID,
      );
      await expectRefused(await signedFetch(t.url, { token: "x' or 1=1 --", secret: SELLER.secret }, 'GET', path), INVALID);
    });

    it('revoked credential: refused within a second (the process drops its cached copy on the notification)', async () => {
      const created = await createCredential(t.db.database.db, t.service.secretBox, { brokerageId: 1, userId: 100 });
      expect((await signedFetch(t.url, created, 'GET', path)).status).toBe(200);
      expect(await revokeCredential(t.db.database.db, created.token)).toBe(true);
      const revokedAt = performance.now();
      let res = await signedFetch(t.url, created, 'GET', path);
      while (res.status === 200 && performance.now() - revokedAt < 1_000) res = await signedFetch(t.url, created, 'GET', path);
      await expectRefused(res, INVALID);
      await expectRefused(await signedFetch(t.url, created, 'POST', `${path}/verify`, { a: 1 }), INVALID);
    });

    it('a body request is refused before its JSON is looked at', async () => {
      const res = await signedFetch(t.url, { token: SELLER.token, secret: BUYER.secret }, 'POST', `${path}/verify`, '{not json');
      await expectRefused(res, INVALID);
    });

    it('an unauthenticated request to an unknown /v9 path is a 404, not a hint about credentials', async () => {
      const res = await rawRequest(t.url, { method: 'GET', target: '/v9/nope' });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ errors: [{ code: 'not_found', message: 'no route for GET /v9/nope' }] });
    });
  });

  describe('bodies', () => {
    const target = '/v9/credentials/current/verify';
    const post = (body: string | Buffer, headers: Record<string, string>, cred = SELLER) =>
      rawRequest(t.url, {
        method: 'POST',
        target,
        headers: {
          'x-token': cred.token,
          'x-signature': sign(cred.secret, Buffer.concat([Buffer.from(`POST 127.0.0.1${target}?`), Buffer.from(body)])),
          ...headers,
        },
        body,
      });

    it('a JSON body without Content-Type is accepted', async () => {
      const res = await post('{"a":1}', {});
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ ok: true });
    });

    it('a JSON body sent as text/plain is accepted', async () => {
      const res = await post('{"a":1}', { 'content-type': 'text/plain' });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ ok: true });
    });

    it.each([
      ['application/json', { 'content-type': 'application/json' }],
      ['text/plain; charset=utf-8', { 'content-type': 'text/plain; charset=utf-8' }],
      ['no Content-Type', {}],
      ['an unrelated Content-Type', { 'content-type': 'application/x-www-form-urlencoded' }],
    ])('malformed JSON with a valid signature is 400 invalid_params (%s)', async (_name, headers) => {
      const res = await post('{"a":', headers as Record<string, string>);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ errors: [{ code: 'invalid_params', message: 'request body is not valid JSON', field: 'body' }] });
    });

    it('a body that is not valid UTF-8 is 400 invalid_params, not text with U+FFFD stored', async () => {
      const res = await post(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), {
        'content-type': 'application/json',
      });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ errors: [{ code: 'invalid_params', message: 'request body is not valid UTF-8', field: 'body' }] });
    });

    it('a __proto__ key is refused as invalid_params', async () => {
      const res = await post('{"__proto__":{"admin":true}}', { 'content-type': 'application/json' });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ errors: [{ code: 'invalid_params', field: 'body' }] });
    });

    it('so is one spelled with \\u escapes, and a constructor object with a prototype', async () => {
      for (const body of ['{"\\u005f_proto__":{"admin":true}}', '{"a":{"constructor":{"prototype":{"admin":true}}}}']) {
        const res = await post(body, { 'content-type': 'application/json' });
        expect(res.status, body).toBe(400);
        expect(res.json, body).toMatchObject({
          errors: [{ code: 'invalid_params', field: 'body', message: expect.stringMatching(/must not contain the key/) }],
        });
      }
    });

    it('a POST without a body but with a Content-Type is accepted (the query is signed)', async () => {
      const signature = sign(SELLER.secret, `POST 127.0.0.1${target}?`);
      const res = await rawRequest(t.url, {
        method: 'POST',
        target,
        headers: { 'x-token': SELLER.token, 'x-signature': signature, 'content-type': 'application/json', 'content-length': '0' },
      });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ ok: true });
    });

    it('a body of exactly 64 KiB is accepted; one byte more is 413 payload_too_large', async () => {
      const json = (size: number) => `{"pad":"${'x'.repeat(size - 10)}"}`;
      expect(Buffer.byteLength(json(64 * 1024))).toBe(64 * 1024);
      expect((await post(json(64 * 1024), { 'content-type': 'application/json' })).status).toBe(200);
      const res = await post(json(64 * 1024 + 1), { 'content-type': 'application/json' });
      expect(res.status).toBe(413);
      expect(res.headers['content-type']).toBe(JSON_TYPE);
      expect(res.json).toEqual({
        errors: [{ code: 'payload_too_large', message: 'request body is larger than 64 KiB, the limit of this route' }],
      });
    });

    it('an oversized chunked body (no Content-Length) is 413 too', async () => {
      const res = await post('x'.repeat(100 * 1024), { 'transfer-encoding': 'chunked' });
      expect(res.status).toBe(413);
      expect(res.json).toEqual({
        errors: [{ code: 'payload_too_large', message: 'request body is larger than 64 KiB, the limit of this route' }],
      });
    });
  });

  describe('Accept', () => {
    const accept = 'application/vnd.ticketevolution.api+json; version=8';

    it('the version=8 Accept header is answered with JSON, 200', async () => {
      const res = await signedFetch(t.url, SELLER, 'GET', '/v9/credentials/current', undefined, { accept });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(JSON_TYPE);
      expect(await res.json()).toMatchObject({ token: SELLER.token });
    });

    it('errors too are JSON under that Accept header', async () => {
      const res = await signedFetch(t.url, { token: SELLER.token, secret: BUYER.secret }, 'GET', '/v9/credentials/current', undefined, {
        accept,
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe(JSON_TYPE);
      expect(await res.json()).toEqual(INVALID);
    });

    it('with a text/plain body under that Accept header', async () => {
      const res = await signedFetch(t.url, BUYER, 'PUT', '/v9/credentials/current/verify', '{"a":1}', {
        accept,
        'content-type': 'text/plain',
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true });
    });
  });
});
