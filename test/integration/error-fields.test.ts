import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldPath, InvalidParams, PAYLOAD_SCHEMAS, problemsOf } from '@fulfil/contract';
import { FulfilmentClient } from '../../src/index.ts';
import { assertTicketPages, factsInOrder } from '../../src/domain/file-rules.ts';
import { apiClient } from '../support/api.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { testPrefix, dropPrefix } from '../support/redis.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { b64, makePdf, makePng } from '../support/test-files.ts';

// One spelling of a field's place (docs/DECISIONS.md D-130): keys and indexes joined by dots,
// `etickets.0.eticket`, in `field` and at the head of the message alike, from every validator
// (zod schemas, the file checks, the handlers, the query parsers, the client package) and in
// every 400 example the OpenAPI document shows.

const DOTTED = /^[A-Za-z_][\w-]*(\.[\w-]+)*$/;

/** The problem names its place in the one format, and its message starts with that place. */
function expectOneFormat(p: { message: string; field?: string }, label: string): void {
  expect(p.field, label).toMatch(DOTTED);
  expect(p.message.startsWith(`${p.field}: `), `${label}: ${p.message}`).toBe(true);
  expect(p.message, label).not.toMatch(/\[\d+\]|\/\d+\//);
}

const ORDER_IDS = [960, 961, 962, 963];

describe('error fields: one format', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let next = 0;
  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture(ORDER_IDS));
    call = apiClient(t.url);
  });
  afterAll(async () => {
    await t?.stop();
  });

  async function shipmentOf(type: string): Promise<number> {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDER_IDS[next++]}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: type });
    expect(updated.status).toBe(200);
    return updated.body.id;
  }

  it('fieldPath joins keys and indexes with dots', () => {
    expect(fieldPath('etickets', 0, 'eticket')).toBe('etickets.0.eticket');
    expect(fieldPath('seats')).toBe('seats');
  });

  it("every operation's documented 400 examples use it", async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as any;
    let seen = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const bad = op?.responses?.['400'];
        if (!bad) continue;
        const json = bad.content?.['application/json'] ?? {};
        const examples = [...(json.example ? [json.example] : []), ...Object.values<any>(json.examples ?? {}).map((e) => e.value)];
        expect(examples.length, `${method} ${path}`).toBeGreaterThan(0);
        for (const ex of examples) {
          for (const e of ex.errors) {
            seen++;
            expectOneFormat(e, `${method} ${path}`);
          }
        }
      }
    }
    expect(seen).toBeGreaterThan(10);
  });

  it('every validator: zod schemas, file checks, handlers, routes', async () => {
    // Every command schema over bodies wrong at each depth.
    const wrong = [{}, { etickets: [{ eticket: 1, colour: 'x' }], tickets: [{ seat: 1 }], seats: [1], x: { y: 1 } }];
    for (const [name, schema] of Object.entries(PAYLOAD_SCHEMAS)) {
      for (const body of wrong) {
        const parsed = (schema as any).safeParse(body, { reportInput: true });
        if (!parsed.success) for (const p of problemsOf(parsed.error)) expectOneFormat(p, name);
      }
    }
    const thrown = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err as InvalidParams;
      }
      throw new Error('expected a refusal');
    };
    expectOneFormat(
      thrown(() => assertTicketPages(2, [2, 1])),
      'assertTicketPages',
    );
    expect(thrown(() => assertTicketPages(2, [2, 1])).field).toBe('etickets.0.eticket');
    expect(thrown(() => factsInOrder(['a'.repeat(64)], new Map(), 'etickets')).field).toBe('etickets.0');
    expectOneFormat(
      thrown(() => factsInOrder(['a'.repeat(64)], new Map(), 'etickets')),
      'factsInOrder',
    );

    const eticket = await shipmentOf('Eticket');
    const pdf1 = b64(await makePdf(1));
    const cases: Array<[string, string, object, string]> = [
      [
        'POST',
        `/v9/shipments/${eticket}/etickets`,
        { etickets: [{ eticket: b64(await makePdf(2)) }, { eticket: pdf1 }] },
        'etickets.0.eticket',
      ],
      ['POST', `/v9/shipments/${eticket}/etickets`, { etickets: [{ eticket: pdf1 }, { eticket: 'not*base64' }] }, 'etickets.1.eticket'],
      ['POST', `/v9/shipments/${eticket}/etickets`, { etickets: [{ eticket: pdf1, colour: 'red' }] }, 'etickets.0.colour'],
      [
        'PUT',
        `/v9/shipments/${eticket}/complete`,
        {
          tickets: [
            { seat: '1', barcode: 'A', primary_ticket_id: 'P' },
            { seat: '2', barcode: 'B' },
          ],
        },
        'tickets.0',
      ],
    ];
    const xmobile = await shipmentOf('XMobile');
    cases.push([
      'POST',
      `/v9/shipments/${xmobile}/transfer_verifications`,
      { files: [{ file: b64(makePng()) }, { file: 'AAAA' }] },
      'files.1.file',
    ]);
    for (const [method, path, body, field] of cases) {
      const res = await call(SELLER, method, path, body);
      expect(res.status, `${path} ${field}`).toBe(400);
      expect(res.body.errors.map((e: any) => e.field)).toContain(field);
      for (const e of res.body.errors) expectOneFormat(e, path);
    }

    // The client package's local validation.
    const prefix = testPrefix();
    const client = new FulfilmentClient({ redisUrl: t.config.REDIS_URL, prefix });
    try {
      const err = await client
        .send('order.accept', { order_id: ORDER_IDS[3], reviewer_id: 100, seats: [{ id: 'x' }] } as any, { brokerageId: 1 })
        .then(
          () => undefined,
          (e: unknown) => e as InvalidParams,
        );
      expect(err).toBeInstanceOf(InvalidParams);
      expect(err!.field).toMatch(/^payload\.seats\.0|^seats\.0/);
      expectOneFormat(err!, 'client');
    } finally {
      await client.close();
      await dropPrefix(prefix);
    }
  });
});
