import { until } from '../support/webhook-receiver.ts';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRoutes, openApiFileText } from '../../src/http/openapi/document.ts';
import { easypostSignature, recordedText } from '../support/easypost-stub.ts';
import { apiClient, BUYER_PICKUP_BODY, SELLER_PICKUP_BODY } from '../support/api.ts';
import { baseFixture, BUYER, ORDERS, SELLER, STRANGER } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { openApiChecker } from '../support/openapi-check.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { proxiedDatabaseUrl } from '../support/tcp-proxy.ts';
import { completedEticketOrder } from '../support/delivery-issue-flow.ts';
import { b64, makePdf, makePng } from '../support/test-files.ts';
import { createCredential } from '../../src/auth/credentials.ts';

// The OpenAPI document is valid, matches the committed docs/openapi.json, and describes what the
// service really answers: every operation is called for a success and for errors, and each
// answer is checked against the document's schema for its status.

const COMMITTED = new URL('../../docs/openapi.json', import.meta.url);

/** Orders of the order commands' checks (reject, cancel, the in-hand date). */
const ORDER_COMMAND_ORDERS = [730, 731, 732] as const;
/** Orders of the file checks (an Eticket shipment, an XMobile one). */
const FILE_ORDERS = [733, 734] as const;
/** A completed Eticket order for the delivery issue routes. */
const ISSUE_ORDER = 735;
const MAILED_ORDER = 736;
const HOLD_ORDER = 737;
const EASYPOST_SECRET = 'whsec-contract-test';

describe('OpenAPI document', () => {
  let t: TestService;
  let doc: any;
  let call: ReturnType<typeof apiClient>;
  let checker: ReturnType<typeof openApiChecker>;
  beforeAll(async () => {
    t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', EASYPOST_WEBHOOK_SECRET: EASYPOST_SECRET } });
    await t.seed(baseFixture([...ORDER_COMMAND_ORDERS, ...FILE_ORDERS, ISSUE_ORDER, MAILED_ORDER, HOLD_ORDER]));
    call = apiClient(t.url);
    const res = await fetch(`${t.url}/openapi.json`);
    expect(res.status).toBe(200);
    doc = await res.json();
    checker = openApiChecker(doc);
  });
  afterAll(async () => {
    await t?.stop();
  });

  /** A signed call whose answer is checked against the document; returns it for more checks. */
  async function checked(
    cred: { token: string; secret: string },
    method: string,
    path: string,
    template: string,
    body?: object | string,
    headers?: Record<string, string>,
  ) {
    const r = await call(cred, method, path, body, headers);
    checker.check(method, template, r.status, r.body, r.headers);
    return r;
  }
  async function open(path: string, template: string, init?: RequestInit) {
    const res = await fetch(`${t.url}${path}`, init);
    const body: any = await res.json();
    checker.check(init?.method ?? 'GET', template, res.status, body, res.headers);
    return { status: res.status, body };
  }

  it('is valid OpenAPI 3.1, and the validator does catch a broken one', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await SwaggerParser.validate(structuredClone(doc));
    const broken = structuredClone(doc);
    delete broken.paths['/v9/inventory'].get.responses['200'].description;
    await expect(SwaggerParser.validate(broken)).rejects.toThrow();
  });

  it('is the committed docs/openapi.json (run `npm run openapi` after changing a route), and leaves no route out', async () => {
    // Served, `servers` is the address the request reached (below); the file keeps the template.
    const built = (await describeRoutes()) as { doc: any; undocumented: string[] };
    const asWritten = { ...doc, servers: built.doc.servers };
    expect(readFileSync(COMMITTED, 'utf8'), 'docs/openapi.json is stale: run npm run openapi').toBe(openApiFileText(asWritten));
    expect(built.doc).toEqual(asWritten);
    expect(built.undocumented).toEqual([]);
  });

  it('gives every operation an id, a description and its 4xx answers; public routes say security: []; links name real operations', () => {
    const ids = new Set<string>();
    for (const op of checker.operations()) {
      const [method, path] = op.split(' ') as [string, string];
      const operation = doc.paths[path][method.toLowerCase()];
      expect(operation.operationId, op).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(ids.has(operation.operationId), `${op}: operationId repeated`).toBe(false);
      ids.add(operation.operationId);
      expect(operation.description?.length, `${op}: no description`).toBeGreaterThan(10);
      expect(
        Object.keys(operation.responses).some((s) => s.startsWith('4')),
        `${op}: no 4xx answer`,
      ).toBe(true);
      if (!path.startsWith('/v9/')) expect(operation.security, op).toEqual([]);
      // x-query-modes is meant (query-modes.ts); every other x- key is finish-document.ts's to consume.
      for (const x of Object.keys(operation)) expect(x.startsWith('x-') && x !== 'x-query-modes', `${op}: ${x} left in`).toBe(false);
    }
    const links = checker.operations().flatMap((op) => {
      const [method, path] = op.split(' ') as [string, string];
      return Object.values(doc.paths[path][method.toLowerCase()].responses).flatMap((r: any) => Object.values(r.links ?? {}));
    }) as Array<{ operationId: string }>;
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) expect(ids.has(link.operationId), link.operationId).toBe(true);
    expect(doc.servers).toEqual([{ url: t.url, description: 'this service, as this request reached it' }]);
  });

  it('names the service as the request reached it in servers: Host, and X-Forwarded-* only behind TRUST_PROXY', async () => {
    // node:http, not fetch: fetch sets Host itself.
    const served = (base: string, headers: Record<string, string>) =>
      new Promise<string>((resolve, reject) => {
        http
          .get(`${base}/openapi.json`, { headers }, (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve((JSON.parse(text) as { servers: Array<{ url: string }> }).servers[0]!.url));
          })
          .on('error', reject);
      });
    const forwarded = { 'x-forwarded-host': 'api.example.com', 'x-forwarded-proto': 'https' };
    const port = new URL(t.url).port;
    expect(await served(t.url, { host: `localhost:${port}` })).toBe(`http://localhost:${port}`);
    expect(await served(t.url, forwarded)).toBe(t.url);
    const proxied = await startTestService({ env: { TRUST_PROXY: 'true' } });
    try {
      expect(await served(proxied.url, forwarded)).toBe('https://api.example.com');
    } finally {
      await proxied.stop();
    }
  });

  it("request examples are answered 200 by the service, and response examples match the document's schemas", async () => {
    const op = (path: string, method: string) => doc.paths[path][method];
    const example = (path: string, method: string, name: string) =>
      op(path, method).requestBody.content['application/json'].examples[name].value;
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd3}/accept`, example('/v9/orders/{id}/accept', 'post', 'reviewer'));
    expect(accepted.status).toBe(200);
    const update = '/v9/shipments/{id}';
    const link = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, example(update, 'put', 'mobileLink'));
    expect(link.status).toBe(200);
    const complete = '/v9/shipments/{id}/complete';
    expect((await call(SELLER, 'PUT', `/v9/shipments/${link.body.id}/complete`, example(complete, 'put', 'link'))).status).toBe(200);
    const seats = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd2}/accept`, example('/v9/orders/{id}/accept', 'post', 'seats'));
    expect(seats.status).toBe(200);
    const tbd = seats.body.shipments[0].id;
    const mobile = await call(SELLER, 'PUT', `/v9/shipments/${tbd}`, { mobile_transfer_type: 'XMobile' });
    expect((await call(SELLER, 'PUT', `/v9/shipments/${mobile.body.id}/complete`, example(complete, 'put', 'none'))).status).toBe(200);
    // The pickup examples run in the pickup flow of the test above (SELLER_PICKUP_BODY and
    // BUYER_PICKUP_BODY are these very examples).
    expect(example(update, 'put', 'sellerPickup')).toEqual(SELLER_PICKUP_BODY);
    expect(example(update, 'put', 'buyerPickup')).toEqual(BUYER_PICKUP_BODY);

    // A checker of its own: an example is not an answer, and must not count as one seen.
    const examples = openApiChecker(doc);
    let responseExamples = 0;
    for (const entry of checker.operations()) {
      const [method, path] = entry.split(' ') as [string, string];
      for (const [status, response] of Object.entries(op(path, method.toLowerCase()).responses) as Array<[string, any]>) {
        for (const ex of Object.values(response.content?.['application/json']?.examples ?? {}) as Array<{ value: unknown }>) {
          examples.check(method, path, Number(status), ex.value);
          responseExamples++;
        }
      }
    }
    expect(responseExamples).toBeGreaterThanOrEqual(3);
  });

  it('states the request rules the service checks: bounds, uniqueness, patterns, the inventory modes', () => {
    const param = (path: string, method: string, name: string) => doc.paths[path][method].parameters.find((p: any) => p.name === name);
    expect(param('/v9/orders/{id}/events', 'get', 'limit').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
    for (const path of ['/v9/orders/{id}', '/v9/shipments/{id}', '/v9/orders/{id}/accept']) {
      const method = Object.keys(doc.paths[path])[0]!;
      expect(param(path, method, 'id').schema).toMatchObject({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
    }
    const accept = doc.paths['/v9/orders/{id}/accept'].post;
    const acceptBody = accept.requestBody.content['application/json'].schema;
    expect(acceptBody.properties.seats).toMatchObject({ uniqueItems: true, items: { maximum: Number.MAX_SAFE_INTEGER } });
    expect(acceptBody.properties.reviewer_id.maximum).toBe(Number.MAX_SAFE_INTEGER);
    expect(accept.responses['400'].description).toContain('reviewer_id');
    const complete = doc.paths['/v9/shipments/{id}/complete'].put.requestBody.content['application/json'].schema;
    const link = new RegExp(complete.properties.x_mobile_link.pattern, 'u');
    expect(['https://a.example/t', 'http://a.example, https://b.example/x?y=1'].every((u) => link.test(u))).toBe(true);
    expect(['ftp://a.example', 'https://', 'a.example', 'https://a b'].some((u) => link.test(u))).toBe(false);
    const seller = doc.paths['/v9/shipments/{id}'].put.requestBody.content['application/json'].schema.oneOf[1];
    expect(seller.properties.ship_from_address_attributes.properties.country_code.enum).toEqual(expect.arrayContaining(['US', 'GB']));
    expect(seller.properties.ship_from_name.pattern).toBeDefined();
    // The inventory's query is plain parameters a generated client sends as they are; the modes
    // (which keys go together) are stated beside them in x-query-modes.
    const inventory = doc.paths['/v9/inventory'].get;
    expect(inventory.parameters.map((p: any) => [p.name, p.in, p.required])).toEqual([
      ['office_id', 'query', true],
      ['state', 'query', false],
      ['page[cursor]', 'query', false],
      ['page[items]', 'query', false],
      ['response', 'query', false],
    ]);
    expect(param('/v9/inventory', 'get', 'state').schema.enum).toEqual(['ALL', 'MAPPED', 'UNMAPPED']);
    expect(param('/v9/inventory', 'get', 'page[items]').schema.maximum).toBe(10000);
    const [all, paged, detailed] = inventory['x-query-modes'].oneOf;
    expect(all.properties['page[cursor]']).toBeUndefined();
    expect(paged.required).toEqual(['office_id', 'state']);
    expect(paged.properties.state.enum).toEqual(['MAPPED', 'UNMAPPED']);
    expect(detailed.required).toContain('response');
    expect(detailed.properties['page[items]'].maximum).toBe(1000);
    expect(detailed.properties['page[cursor]'].maximum).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('describes the signing scheme and puts every /v9 operation under it', () => {
    expect(doc.components.securitySchemes).toMatchObject({
      token: { type: 'apiKey', in: 'header', name: 'X-Token' },
      signature: { type: 'apiKey', in: 'header', name: 'X-Signature' },
    });
    for (const op of checker.operations().filter((o) => o.includes(' /v9/'))) {
      const [method, path] = op.split(' ') as [string, string];
      const operation = doc.paths[path][method.toLowerCase()];
      expect(operation.security, op).toEqual([{ token: [], signature: [] }]);
      for (const status of ['401', '429', '503']) expect(operation.responses[status], `${op} ${status}`).toBeDefined();
    }
  });

  it('the front door, health checks and the interactive reference answer without a credential', async () => {
    const front = await open('/', '/');
    expect(front.body).toMatchObject({
      service: 'fulfil',
      links: { docs: '/docs', openapi: '/openapi.json', livez: '/livez', readyz: '/readyz' },
    });
    expect(front.body.version).toBe(doc.info.version);
    expect((await fetch(`${t.url}/v9`)).status).toBe(200);
    await open('/livez', '/livez');
    await open('/readyz', '/readyz');
    const page = await fetch(`${t.url}/docs/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('swagger-ui');
    // Every asset the page loads comes from this service.
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const a of assets) expect(a, a).not.toMatch(/^(https?:)?\/\//);
    const init = await fetch(`${t.url}/docs/static/swagger-initializer.js`);
    expect(init.status).toBe(200);
    expect(await init.text()).toContain('window.fulfilSign');
    const script = await fetch(`${t.url}/docs/static/theme/sign-in-browser.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain('crypto.subtle');
    expect(html).toContain('theme/sign-in-browser.js');
  });

  it('credentials and commands: success and error answers match the document', async () => {
    await checked(SELLER, 'GET', '/v9/credentials/current', '/v9/credentials/current');
    await open('/v9/credentials/current', '/v9/credentials/current');
    await checked(BUYER, 'POST', '/v9/credentials/current/verify', '/v9/credentials/current/verify', { a: 1 });
    await checked(BUYER, 'PUT', '/v9/credentials/current/verify', '/v9/credentials/current/verify', [1]);
    await checked(BUYER, 'PUT', '/v9/credentials/current/verify', '/v9/credentials/current/verify', '{"a":');
    await checked(BUYER, 'POST', '/v9/credentials/current/verify', '/v9/credentials/current/verify', `"${'x'.repeat(70_000)}"`);
    expect([...checker.seen]).toEqual(
      expect.arrayContaining(['POST /v9/credentials/current/verify 413', 'PUT /v9/credentials/current/verify 400']),
    );

    const accept = '/v9/orders/{id}/accept';
    expect((await checked(BUYER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, accept, { reviewer_id: 200 })).status).toBe(403);
    expect((await checked(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, accept, { reviewer_id: 'x' })).status).toBe(400);
    expect((await checked(STRANGER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, accept, { reviewer_id: 300 })).status).toBe(404);
    const key = { 'idempotency-key': 'contract-accept-700' };
    expect((await checked(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, accept, { reviewer_id: 100 }, key)).status).toBe(200);
    expect(
      (await checked(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, accept, { reviewer_id: 100, seats: [1, 2] }, key)).status,
    ).toBe(409);
    expect((await checked(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, accept, { reviewer_id: 100 })).status).toBe(422);

    const queued = await checked(
      SELLER,
      'POST',
      `/v9/orders/${ORDERS.flash}/accept`,
      accept,
      { reviewer_id: 100 },
      { prefer: 'respond-async' },
    );
    expect(queued.status).toBe(202);
    let status = await checked(SELLER, 'GET', queued.body.url, '/v9/commands/{id}');
    for (let i = 0; i < 100 && !status.body.response; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = await checked(SELLER, 'GET', queued.body.url, '/v9/commands/{id}');
    }
    expect(status.body.response.status).toBe(200);
    checker.check('POST', accept, status.body.response.status, status.body.response.body);
    expect((await checked(BUYER, 'GET', queued.body.url, '/v9/commands/{id}')).status).toBe(404);
  });

  it('shipments and reads: success and error answers match the document', async () => {
    const update = '/v9/shipments/{id}';
    const complete = '/v9/shipments/{id}/complete';
    const order = (await checked(SELLER, 'GET', `/v9/orders/${ORDERS.tbd}`, '/v9/orders/{id}')).body;
    const tbd = order.shipments[0].id;
    expect((await checked(BUYER, 'PUT', `/v9/shipments/${tbd}`, update, { mobile_transfer_type: 'XMobile' })).status).toBe(403);
    expect((await checked(SELLER, 'PUT', `/v9/shipments/${tbd}`, update, { mobile_transfer_type: 'Pigeon' })).status).toBe(400);
    expect((await checked(SELLER, 'PUT', `/v9/shipments/${tbd}/complete`, complete, {})).status).toBe(422);
    const moved = await checked(SELLER, 'PUT', `/v9/shipments/${tbd}`, update, { mobile_transfer_type: 'XMobile' });
    expect(moved.status).toBe(200);
    expect((await checked(SELLER, 'PUT', `/v9/shipments/${tbd}`, update, { mobile_transfer_type: 'XMobileLink' })).status).toBe(410);
    expect((await checked(SELLER, 'GET', `/v9/shipments/${tbd}`, update)).status).toBe(410);
    expect((await checked(STRANGER, 'GET', `/v9/shipments/${tbd}`, update)).status).toBe(404);
    expect((await checked(SELLER, 'GET', `/v9/shipments/${moved.body.id}`, update)).status).toBe(200);
    expect((await checked(SELLER, 'GET', '/v9/shipments/x', update)).status).toBe(400);
    expect(
      (await checked(SELLER, 'PUT', `/v9/shipments/${moved.body.id}/complete`, complete, { x_mobile_link: 'https://c.example.test/1' }))
        .status,
    ).toBe(200);
    expect((await checked(STRANGER, 'PUT', `/v9/shipments/${moved.body.id}/complete`, complete, {})).status).toBe(404);

    const flash = (await checked(BUYER, 'GET', `/v9/orders/${ORDERS.flash}`, '/v9/orders/{id}')).body.shipments[0];
    expect(flash.type).toBe('XSeats');
    expect(
      (await checked(SELLER, 'POST', `/v9/shipments/${flash.id}/complete`, complete, { x_mobile_link: 'https://c.example.test/2' })).status,
    ).toBe(400);
    expect((await checked(SELLER, 'POST', `/v9/shipments/${flash.id}/complete`, complete)).status).toBe(200);

    expect(
      (await checked(SELLER, 'POST', `/v9/orders/${ORDERS.localPickup}/accept`, '/v9/orders/{id}/accept', { reviewer_id: 100 })).status,
    ).toBe(200);
    const pickup = (await checked(BUYER, 'GET', `/v9/orders/${ORDERS.localPickup}`, '/v9/orders/{id}')).body.shipments[0];
    expect((await checked(SELLER, 'PUT', `/v9/shipments/${pickup.id}`, update, BUYER_PICKUP_BODY)).status).toBe(403);
    const seller = await checked(SELLER, 'PUT', `/v9/shipments/${pickup.id}`, update, SELLER_PICKUP_BODY);
    const buyer = await checked(BUYER, 'PUT', `/v9/shipments/${seller.body.id}`, update, BUYER_PICKUP_BODY);
    expect(buyer.status).toBe(200);
    expect((await checked(BUYER, 'GET', `/v9/shipments/${buyer.body.id}`, update)).body.state).toBe('delivered');
    expect((await checked(SELLER, 'PUT', `/v9/shipments/${buyer.body.id}`, update, SELLER_PICKUP_BODY)).status).toBe(422);

    const events = '/v9/orders/{id}/events';
    expect((await checked(BUYER, 'GET', `/v9/orders/${ORDERS.localPickup}/events`, events)).body.events).toHaveLength(3);
    expect((await checked(BUYER, 'GET', `/v9/orders/${ORDERS.localPickup}/events?limit=0`, events)).status).toBe(400);
    expect((await checked(STRANGER, 'GET', `/v9/orders/${ORDERS.localPickup}/events`, events)).status).toBe(404);
    expect((await checked(STRANGER, 'GET', `/v9/orders/${ORDERS.localPickup}`, '/v9/orders/{id}')).status).toBe(404);
    // The feed, once the relay has handed the pickup's three events on: event objects with shipments.
    let feed = await checked(BUYER, 'GET', '/v9/events', '/v9/events');
    for (
      let tries = 0;
      feed.body.events.filter((e: { order_id: number }) => e.order_id === ORDERS.localPickup).length < 3 && tries < 200;
      tries++
    ) {
      await new Promise((r) => setTimeout(r, 50));
      feed = await checked(BUYER, 'GET', '/v9/events', '/v9/events');
    }
    expect(feed.body.events.map((e: { type: string }) => e.type)).toContain('shipment.pickup_details');
    expect((await checked(BUYER, 'GET', '/v9/events?wait=99', '/v9/events')).status).toBe(400);
    expect((await checked(SELLER, 'GET', `/v9/orders/0`, '/v9/orders/{id}')).status).toBe(400);
  });

  it('inventory: both modes and its errors match the document', async () => {
    const inv = '/v9/inventory';
    await t.seed({
      ...baseFixture(),
      ticket_groups: [
        {
          office_id: 10,
          remote_id: 1,
          id: 900001,
          event_id: 5000,
          quantity: 2,
          cost: '10.00',
          seats: [{ barcode: null, primary_ticket_id: null, seat: '1', verification_id: null }],
        },
        { office_id: 10, remote_id: 2, id: null, event_id: null, quantity: 1 },
      ],
    });
    expect((await checked(SELLER, 'GET', '/v9/inventory?office_id=10', inv)).body).toHaveLength(2);
    expect((await checked(SELLER, 'GET', '/v9/inventory?office_id=10&response=detailed&page[cursor]=1', inv)).body.inventory).toHaveLength(
      1,
    );
    expect((await checked(SELLER, 'GET', '/v9/inventory?office_id=10&response=detailed', inv)).status).toBe(400);
    expect((await checked(SELLER, 'GET', '/v9/inventory?office_id=20', inv)).status).toBe(401);
  });

  it('429 and 503 answers match the document too (reads are rate-limited like every /v9 call)', async () => {
    const { proxy, url } = await proxiedDatabaseUrl(t.db.url);
    const limited = await startTestService({ db: t.db, env: { DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 55_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
      const path = `/v9/orders/${ORDERS.tbd}`;
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await signedFetch(limited.url, STRANGER, 'GET', path);
        statuses.push(res.status);
        checker.check('GET', '/v9/orders/{id}', res.status, await res.json(), res.headers);
      }
      expect(statuses).toEqual([404, 404, 429]);

      proxy.cut();
      const down = await signedFetch(limited.url, SELLER, 'GET', path);
      expect(down.status).toBe(503);
      checker.check('GET', '/v9/orders/{id}', 503, await down.json(), down.headers);
      const ready = await fetch(`${limited.url}/readyz`);
      expect(ready.status).toBe(503);
      checker.check('GET', '/readyz', 503, await ready.json());
    } finally {
      await limited.stop();
      proxy.close();
    }
  }, 90_000);

  it('webhook endpoints: success and error answers match the document', async () => {
    const list = '/v9/webhook_endpoints';
    const one = '/v9/webhook_endpoints/{id}';
    // Port 9 (discard) refuses connections: the ping below fails fast, and is only logged.
    const created = await checked(SELLER, 'POST', list, list, { url: 'http://127.0.0.1:9/hook' });
    expect(created.status).toBe(201);
    expect((await checked(SELLER, 'POST', list, list, { url: 'nope' })).status).toBe(400);
    const id = created.body.id as number;
    await checked(SELLER, 'GET', list, list);
    await open(list, list);
    await checked(SELLER, 'GET', `${list}/${id}`, one);
    await checked(STRANGER, 'GET', `${list}/${id}`, one);
    await checked(SELLER, 'PATCH', `${list}/${id}`, one, { event_kinds: ['created'] });
    await checked(SELLER, 'PATCH', `${list}/${id}`, one, {});
    await checked(SELLER, 'PUT', `${list}/${id}`, one, { enabled: true });
    await checked(STRANGER, 'PUT', `${list}/${id}`, one, { enabled: true });
    await checked(SELLER, 'POST', `${list}/${id}/rotate_secret`, `${one}/rotate_secret`, { grace_seconds: 10 });
    await checked(SELLER, 'POST', `${list}/${id}/rotate_secret`, `${one}/rotate_secret`, { grace_seconds: -1 });
    await checked(SELLER, 'POST', `${list}/${id}/ping`, `${one}/ping`, {});
    await checked(STRANGER, 'POST', `${list}/${id}/ping`, `${one}/ping`, {});
    await checked(SELLER, 'GET', `${list}/${id}/deliveries?limit=5`, `${one}/deliveries`);
    await checked(SELLER, 'GET', `${list}/${id}/deliveries?limit=0`, `${one}/deliveries`);
    await checked(SELLER, 'POST', `${list}/${id}/redeliver`, `${one}/redeliver`, { since: '2020-01-01T00:00:00Z' });
    await checked(SELLER, 'POST', `${list}/${id}/redeliver`, `${one}/redeliver`, { event_id: 'unknown' });
    expect((await call(SELLER, 'DELETE', `${list}/${id}`)).status).toBe(204);
    checker.seen.add(`DELETE ${one} 204`);
    await checked(SELLER, 'DELETE', `${list}/${id}`, one);
  });

  it('the order commands: reject, cancel and its withdrawal, the in-hand date', async () => {
    const [rejectable, cancelable, dated] = ORDER_COMMAND_ORDERS;
    const reject = '/v9/orders/{id}/reject';
    const cancel = '/v9/orders/{id}/cancel';
    const update = '/v9/orders/{id}';
    expect((await checked(SELLER, 'POST', `/v9/orders/${rejectable}/reject`, reject, { reviewer_id: 100, reason: 'Nope' })).status).toBe(
      400,
    );
    expect((await checked(BUYER, 'POST', `/v9/orders/${rejectable}/reject`, reject, { reviewer_id: 200, reason: 'Other' })).status).toBe(
      403,
    );
    expect(
      (await checked(SELLER, 'POST', `/v9/orders/${rejectable}/reject`, reject, { reviewer_id: 100, reason: 'Test Order' })).status,
    ).toBe(200);
    expect((await checked(SELLER, 'POST', `/v9/orders/${rejectable}/reject`, reject, { reviewer_id: 100, reason: 'Other' })).status).toBe(
      422,
    );
    expect((await checked(SELLER, 'POST', `/v9/orders/${cancelable}/cancel`, cancel, {})).status).toBe(422);
    await checked(SELLER, 'POST', `/v9/orders/${cancelable}/accept`, '/v9/orders/{id}/accept', { reviewer_id: 100 });
    expect((await checked(BUYER, 'POST', `/v9/orders/${cancelable}/cancel`, cancel, { reason: 'changed plans' })).status).toBe(200);
    expect((await checked(SELLER, 'DELETE', `/v9/orders/${cancelable}/cancel`, cancel)).status).toBe(422);
    expect((await checked(BUYER, 'DELETE', `/v9/orders/${cancelable}/cancel`, cancel)).status).toBe(200);
    expect((await checked(SELLER, 'PUT', `/v9/orders/${dated}`, update, { in_hand_on: 'soon' })).status).toBe(400);
    expect((await checked(SELLER, 'PUT', `/v9/orders/${dated}`, update, { in_hand_on: '2027-03-01' })).status).toBe(200);
    expect((await checked(STRANGER, 'PUT', `/v9/orders/${dated}`, update, { in_hand_on: '2027-03-01' })).status).toBe(404);
  });

  it('e-tickets and proofs of transfer: uploads, lists, downloads, the one-time link', async () => {
    const shipmentOf = async (orderId: number, type: string) => {
      const accepted = await checked(SELLER, 'POST', `/v9/orders/${orderId}/accept`, '/v9/orders/{id}/accept', { reviewer_id: 100 });
      const updated = await checked(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, '/v9/shipments/{id}', {
        mobile_transfer_type: type,
      });
      return updated.body.id as number;
    };
    const [eticketOrder, mobileOrder] = FILE_ORDERS;
    const id = await shipmentOf(eticketOrder, 'Eticket');
    const etickets = '/v9/shipments/{id}/etickets';
    expect(
      (await checked(SELLER, 'POST', `/v9/shipments/${id}/etickets`, etickets, { etickets: [{ eticket: b64(makePng()) }] })).status,
    ).toBe(400);
    expect(
      (await checked(BUYER, 'POST', `/v9/shipments/${id}/etickets`, etickets, { etickets: [{ eticket: b64(await makePdf(2)) }] })).status,
    ).toBe(403);
    const up = await checked(SELLER, 'POST', `/v9/shipments/${id}/etickets`, etickets, {
      etickets: [{ eticket: b64(await makePdf(2)), seat: '3' }],
    });
    expect(up.status).toBe(200);
    expect((await checked(BUYER, 'GET', `/v9/shipments/${id}/etickets`, etickets)).status).toBe(200);
    expect((await checked(STRANGER, 'GET', `/v9/shipments/${id}/etickets`, etickets)).status).toBe(404);
    const one = '/v9/shipments/{id}/etickets/{eticket_id}';
    const pdf = await signedFetch(t.url, BUYER, 'GET', up.body.etickets[0].url);
    checker.checkFile('GET', one, pdf.status, pdf.headers.get('content-type'));
    expect((await checked(STRANGER, 'GET', up.body.etickets[0].url, one)).status).toBe(404);
    const link = '/v9/shipments/{id}/etickets/link';
    expect((await checked(BUYER, 'POST', `/v9/shipments/${id}/etickets/link`, link, { expires_in_minutes: 0 })).status).toBe(400);
    const made = await checked(BUYER, 'POST', `/v9/shipments/${id}/etickets/link`, link, {});
    expect(made.status).toBe(201);
    const download = '/eticket_downloads/{token}';
    const linkPath = new URL(made.body.url).pathname;
    const page = await fetch(new URL(linkPath, t.url));
    checker.checkFile('GET', download, page.status, page.headers.get('content-type'));
    expect(page.status).toBe(200);
    const byLink = await fetch(new URL(linkPath, t.url), { method: 'POST' });
    checker.checkFile('POST', download, byLink.status, byLink.headers.get('content-type'));
    expect(byLink.status).toBe(200);
    await open(linkPath, download, { method: 'POST' });
    const gonePage = await fetch(new URL(linkPath, t.url));
    checker.checkFile('GET', download, gonePage.status, gonePage.headers.get('content-type'));
    expect(gonePage.status).toBe(404);

    const mobile = await shipmentOf(mobileOrder, 'XMobile');
    const proofs = '/v9/shipments/{id}/transfer_verifications';
    expect(
      (await checked(SELLER, 'POST', `/v9/shipments/${mobile}/transfer_verifications`, proofs, { files: [{ file: 'not base64!' }] }))
        .status,
    ).toBe(400);
    const proof = await checked(SELLER, 'POST', `/v9/shipments/${mobile}/transfer_verifications`, proofs, {
      files: [{ file: b64(makePng()) }],
    });
    expect(proof.status).toBe(200);
    expect((await checked(BUYER, 'GET', `/v9/shipments/${mobile}/transfer_verifications`, proofs)).status).toBe(200);
    expect((await checked(STRANGER, 'GET', `/v9/shipments/${mobile}/transfer_verifications`, proofs)).status).toBe(404);
    const proofFile = '/v9/shipments/{id}/transfer_verifications/{file_id}';
    const png = await signedFetch(t.url, BUYER, 'GET', proof.body.files[0].url);
    checker.checkFile('GET', proofFile, png.status, png.headers.get('content-type'));
    expect((await checked(STRANGER, 'GET', proof.body.files[0].url, proofFile)).status).toBe(404);
  });

  it('delivery issues: open, answer, reissue, escalate, resolve, read, the evidence', async () => {
    const { shipmentId } = await completedEticketOrder(call, ISSUE_ORDER);
    const open = '/v9/orders/{id}/delivery_issues';
    expect((await checked(BUYER, 'POST', `/v9/orders/${ISSUE_ORDER}/delivery_issues`, open, { reason: 'lost' })).status).toBe(400);
    const opened = await checked(BUYER, 'POST', `/v9/orders/${ISSUE_ORDER}/delivery_issues`, open, { reason: 'wrong_tickets' });
    expect(opened.status).toBe(201);
    const id = opened.body.id as number;
    expect((await checked(BUYER, 'GET', `/v9/orders/${ISSUE_ORDER}/delivery_issues`, open)).status).toBe(200);
    expect((await checked(STRANGER, 'GET', `/v9/orders/${ISSUE_ORDER}/delivery_issues`, open)).status).toBe(404);
    const one = '/v9/delivery_issues/{id}';
    expect((await checked(SELLER, 'GET', `/v9/delivery_issues/${id}`, one)).status).toBe(200);
    expect((await checked(STRANGER, 'GET', `/v9/delivery_issues/${id}`, one)).status).toBe(404);
    const responses = '/v9/delivery_issues/{id}/responses';
    expect((await checked(BUYER, 'POST', `/v9/delivery_issues/${id}/responses`, responses, { notes: 'x' })).status).toBe(403);
    expect((await checked(SELLER, 'POST', `/v9/delivery_issues/${id}/responses`, responses, { notes: 'see the evidence' })).status).toBe(
      200,
    );
    const reissue = '/v9/shipments/{id}/reissue';
    expect((await checked(SELLER, 'POST', `/v9/shipments/${shipmentId}/reissue`, reissue, {})).status).toBe(400);
    const tickets = [{ seat: '12', barcode: 'NEW-12' }];
    expect((await checked(SELLER, 'POST', `/v9/shipments/${shipmentId}/reissue`, reissue, { tickets })).status).toBe(200);
    const escalate = '/v9/delivery_issues/{id}/escalate';
    expect((await checked(SELLER, 'POST', `/v9/delivery_issues/${id}/escalate`, escalate, {})).status).toBe(403);
    expect((await checked(BUYER, 'POST', `/v9/delivery_issues/${id}/escalate`, escalate, {})).status).toBe(200);
    const resolve = '/v9/delivery_issues/{id}/resolve';
    expect((await checked(BUYER, 'POST', `/v9/delivery_issues/${id}/resolve`, resolve, {})).status).toBe(200);
    expect((await checked(BUYER, 'POST', `/v9/delivery_issues/${id}/resolve`, resolve, {})).status).toBe(422);
    const evidence = '/v9/orders/{id}/delivery_evidence';
    expect((await checked(BUYER, 'GET', `/v9/orders/${ISSUE_ORDER}/delivery_evidence`, evidence)).status).toBe(200);
    expect((await checked(STRANGER, 'GET', `/v9/orders/${ISSUE_ORDER}/delivery_evidence`, evidence)).status).toBe(404);
    const shipment = await checked(BUYER, 'GET', `/v9/shipments/${shipmentId}`, '/v9/shipments/{id}');
    expect(shipment.body.barcodes.revoked).toHaveLength(1);
  });

  it('holds: place, list, answer, release', async () => {
    const place = '/v9/orders/{id}/holds';
    expect((await checked(SELLER, 'POST', `/v9/orders/${HOLD_ORDER}/holds`, place, { reason: 'lost' })).status).toBe(400);
    const placed = await checked(SELLER, 'POST', `/v9/orders/${HOLD_ORDER}/holds`, place, { reason: 'awaiting_buyer_info', handle: 'h' });
    expect(placed.status).toBe(201);
    expect((await checked(SELLER, 'POST', `/v9/orders/${HOLD_ORDER}/holds`, place, { reason: 'other', handle: 'h' })).status).toBe(200);
    expect((await checked(BUYER, 'GET', `/v9/orders/${HOLD_ORDER}/holds`, place)).status).toBe(200);
    expect((await checked(STRANGER, 'GET', `/v9/orders/${HOLD_ORDER}/holds`, place)).status).toBe(404);
    const id = placed.body.id as number;
    const answer = '/v9/holds/{id}/answer';
    expect((await checked(SELLER, 'POST', `/v9/holds/${id}/answer`, answer, { notes: 'x' })).status).toBe(403);
    expect((await checked(BUYER, 'POST', `/v9/holds/${id}/answer`, answer, { notes: 'Ada Lovelace' })).status).toBe(200);
    const release = '/v9/holds/{id}/release';
    expect((await checked(BUYER, 'POST', `/v9/holds/${id}/release`, release, {})).status).toBe(403);
    expect((await checked(SELLER, 'POST', `/v9/holds/${id}/release`, release, {})).status).toBe(200);
    expect((await checked(SELLER, 'POST', `/v9/holds/${id}/release`, release, {})).status).toBe(422);
  });

  it('mailed tickets: the mailed type, the airbill, tracking numbers and events, the carrier webhook', async () => {
    const accepted = await checked(SELLER, 'POST', `/v9/orders/${MAILED_ORDER}/accept`, '/v9/orders/{id}/accept', { reviewer_id: 100 });
    const address = {
      name: 'Bo Buyer',
      street_address: '1 Main St',
      locality: 'Chicago',
      region: 'IL',
      postal_code: '60601',
      country_code: 'US',
    };
    const shipment = '/v9/shipments/{id}';
    const poBox = await checked(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, shipment, {
      type: 'UPS',
      ship_to_address_attributes: { ...address, street_address: 'PO Box 12' },
    });
    expect(poBox.status).toBe(422);
    const mailed = await checked(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, shipment, {
      type: 'USPS',
      ship_to_address_attributes: address,
    });
    expect(mailed.status).toBe(200);
    const id = mailed.body.id as number;
    const USPS = '9400111202555842332669';
    const airbill = '/v9/shipments/{id}/airbill';
    expect(
      (await checked(SELLER, 'POST', `/v9/shipments/${id}/airbill`, airbill, { airbill: 'not base64!', tracking_number: USPS })).status,
    ).toBe(400);
    const up = await checked(SELLER, 'POST', `/v9/shipments/${id}/airbill`, airbill, {
      airbill: b64(await makePdf(1, 'label')),
      tracking_number: USPS,
    });
    expect(up.status).toBe(200);
    const label = await signedFetch(t.url, BUYER, 'GET', `/v9/shipments/${id}/airbill`);
    checker.checkFile('GET', airbill, label.status, label.headers.get('content-type'));
    expect((await checked(STRANGER, 'GET', `/v9/shipments/${id}/airbill`, airbill)).status).toBe(404);
    const tracking = '/v9/shipments/{id}/tracking';
    expect((await checked(SELLER, 'PUT', `/v9/shipments/${id}/tracking`, tracking, { tracking_number: '1Z5R89390357567127' })).status).toBe(
      400,
    );
    expect((await checked(SELLER, 'PUT', `/v9/shipments/${id}/tracking`, tracking, { tracking_number: USPS })).status).toBe(200);
    const events = '/v9/shipments/{id}/tracking_events';
    const at = new Date().toISOString();
    expect((await checked(SELLER, 'POST', `/v9/shipments/${id}/tracking_events`, events, { status: 'lost', occurred_at: at })).status).toBe(
      400,
    );
    expect(
      (await checked(SELLER, 'POST', `/v9/shipments/${id}/tracking_events`, events, { status: 'in_transit', occurred_at: at })).status,
    ).toBe(200);
    expect((await checked(BUYER, 'GET', `/v9/shipments/${id}/tracking_events`, events)).status).toBe(200);
    expect((await checked(STRANGER, 'GET', `/v9/shipments/${id}/tracking_events`, events)).status).toBe(404);
    const confirm = '/v9/orders/{id}/confirm_receipt';
    expect((await checked(SELLER, 'POST', `/v9/orders/${MAILED_ORDER}/confirm_receipt`, confirm)).status).toBe(403);
    expect((await checked(BUYER, 'POST', `/v9/orders/${MAILED_ORDER}/confirm_receipt`, confirm)).status).toBe(200);
    const hook = '/carriers/easypost/events';
    const body = recordedText('tracker-updated-in-transit.json');
    const post = (signature?: string) =>
      open(hook, hook, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(signature ? { 'x-hmac-signature': signature } : {}) },
        body,
      });
    expect((await post()).status).toBe(401);
    expect((await post(easypostSignature(EASYPOST_SECRET, body))).status).toBe(200);
  });

  it('test mode: a test order for a test credential, 403 for a live one; its simulated party acts', async () => {
    const test = await createCredential(t.db.database.db, t.service.secretBox, { brokerageId: 1, mode: 'test' });
    const created = await checked(test, 'POST', '/v9/test_helpers/orders', '/v9/test_helpers/orders', { role: 'seller' });
    expect(created.status).toBe(201);
    const refused = await checked(SELLER, 'POST', '/v9/test_helpers/orders', '/v9/test_helpers/orders', { role: 'seller' });
    expect(refused.status).toBe(403);
    const bought = await checked(test, 'POST', '/v9/test_helpers/orders', '/v9/test_helpers/orders', { role: 'buyer' });
    const actions = '/v9/test_helpers/orders/{id}/actions';
    const acted = await checked(test, 'POST', `/v9/test_helpers/orders/${bought.body.id}/actions`, actions, { action: 'accept' });
    expect(acted.status).toBe(200);
    const again = await checked(test, 'POST', `/v9/test_helpers/orders/${bought.body.id}/actions`, actions, { action: 'accept' });
    expect(again.status).toBe(422);
    const unknown = await checked(test, 'POST', `/v9/test_helpers/orders/${created.body.id}/actions`, actions, { action: 'ship' });
    expect(unknown.status).toBe(400);
  });

  it('test clocks: made, listed, read, advanced and deleted by a test credential, 403 for a live one, 404 for none', async () => {
    const test = await createCredential(t.db.database.db, t.service.secretBox, { brokerageId: 1, mode: 'test' });
    const clocks = '/v9/test_clocks';
    const one = '/v9/test_clocks/{id}';
    const made = await checked(test, 'POST', clocks, clocks, { frozen_time: '2031-01-01T00:00:00Z', name: 'contract' });
    expect(made.status).toBe(201);
    expect((await checked(SELLER, 'POST', clocks, clocks, { frozen_time: '2031-01-01T00:00:00Z' })).status).toBe(403);
    expect((await checked(test, 'GET', clocks, clocks)).status).toBe(200);
    expect((await checked(SELLER, 'GET', clocks, clocks)).status).toBe(403);
    expect((await checked(test, 'GET', `${clocks}/${made.body.id}`, one)).status).toBe(200);
    expect((await checked(test, 'GET', `${clocks}/1`, one)).status).toBe(404);
    const advance = '/v9/test_clocks/{id}/advance';
    const back = await checked(test, 'POST', `${clocks}/${made.body.id}/advance`, advance, { frozen_time: '2030-01-01T00:00:00Z' });
    expect(back.status).toBe(400);
    const ahead = await checked(test, 'POST', `${clocks}/${made.body.id}/advance`, advance, { frozen_time: '2031-01-02T00:00:00Z' });
    expect(ahead.status).toBe(200);
    const twice = await checked(test, 'POST', `${clocks}/${made.body.id}/advance`, advance, { frozen_time: '2031-01-03T00:00:00Z' });
    // The first advance may already be done (no order on the clock): ready again, or still advancing.
    expect([200, 409]).toContain(twice.status);
    await until('the clock ready', async () => (await checked(test, 'GET', `${clocks}/${made.body.id}`, one)).body.status === 'ready');
    expect((await checked(SELLER, 'DELETE', `${clocks}/${made.body.id}`, one)).status).toBe(403);
    expect((await checked(test, 'DELETE', `${clocks}/${made.body.id}`, one)).status).toBe(200);
  });

  it('every operation was checked with a success and with an error', () => {
    for (const op of checker.operations()) {
      const statuses = [...checker.seen].filter((s) => s.startsWith(`${op} `)).map((s) => Number(s.split(' ')[2]));
      expect(
        statuses.some((s) => s < 300),
        `${op}: no success checked`,
      ).toBe(true);
      if (op.includes(' /v9/'))
        expect(
          statuses.some((s) => s >= 400),
          `${op}: no error checked`,
        ).toBe(true);
    }
  });
});
