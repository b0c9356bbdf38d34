import http from 'node:http';
import fc from 'fast-check';
import { signatureFor, hostWithoutPort } from '../src/auth/signer.ts';
import { BUYER, SELLER, STRANGER } from './flows.ts';

/**
 * Property-based pass over every route: generated methods, paths (ids of every shape, percent
 * escapes of any byte), queries, bodies (JSON, near-JSON, random bytes, invalid UTF-8) and
 * headers, most of them correctly signed so they get past authentication into the routes.
 * The property: never a 5xx, and every error answer is the contract's `{"errors":[{code,message}]}`.
 */

const ROUTES: Array<{ methods: string[]; path: (id: string) => string }> = [
  { methods: ['GET'], path: () => '/v9/credentials/current' },
  { methods: ['POST', 'PUT'], path: () => '/v9/credentials/current/verify' },
  { methods: ['GET'], path: (id) => `/v9/commands/${id}` },
  { methods: ['POST'], path: (id) => `/v9/orders/${id}/accept` },
  { methods: ['PUT'], path: (id) => `/v9/shipments/${id}` },
  { methods: ['PUT', 'POST'], path: (id) => `/v9/shipments/${id}/complete` },
  { methods: ['GET'], path: () => '/v9/inventory' },
  { methods: ['GET'], path: () => '/livez' },
  { methods: ['GET'], path: () => '/readyz' },
  { methods: ['GET'], path: () => '/metrics' },
  { methods: ['GET'], path: () => '/ops/queues' },
  { methods: ['GET', 'POST', 'DELETE', 'PATCH'], path: (id) => `/v9/${id}` },
];

const hexByte = fc.integer({ min: 0, max: 255 }).map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`);
const urlChar = fc.constantFrom(..."abcXYZ019-._~!$&'()*+,;=:@[]".split(''));
const idArb = fc.oneof(
  fc.integer({ min: -5, max: 2 ** 53 }).map(String),
  // the ids most likely to slip past a route's checks weigh more
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '0',
      '-1',
      '1e3',
      '0x10',
      '00012',
      '9'.repeat(30),
      'c-00000000-0000-0000-0000-000000000000',
      '%00',
      'a%00',
      '%C0%AF',
      '%FF',
      '..',
      '%2e%2e',
    ),
  },
  fc.array(fc.oneof(urlChar, hexByte), { minLength: 1, maxLength: 24 }).map((a) => a.join('')),
  fc.integer({ min: 100_000, max: 100_050 }).map(String),
);

const jsonValue = fc.jsonValue({ maxDepth: 4 });
const knownFields = fc.record(
  {
    reviewer_id: fc.oneof(fc.integer(), fc.string(), fc.constant(100), fc.constant(null)),
    mobile_transfer_type: fc.oneof(fc.constantFrom('XMobileLink', 'XMobile', 'XSeats', 'LocalPickup', ''), fc.string()),
    transfer_source: fc.oneof(fc.constantFrom('ticketmaster', 'axs'), fc.string()),
    x_mobile_link: fc.oneof(fc.webUrl(), fc.string()),
    seats: fc.array(fc.oneof(fc.integer(), fc.string()), { maxLength: 4 }),
    ship_to_name: fc.string({ unit: 'binary', maxLength: 40 }),
    email_address: fc.oneof(fc.emailAddress(), fc.string()),
  },
  { requiredKeys: [] },
);
const bodyArb: fc.Arbitrary<Buffer | undefined> = fc.oneof(
  // no body weighs more: most GETs have none, and a bad body stops a request before its route
  { weight: 4, arbitrary: fc.constant(undefined) },
  knownFields.map((o) => Buffer.from(JSON.stringify(o))),
  jsonValue.map((v) => Buffer.from(JSON.stringify(v))),
  fc.string({ unit: 'binary', maxLength: 200 }).map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
  fc
    .constantFrom(
      '{"a":"\\u0000"}',
      '{"a":"\u0000"}',
      '{"a":"\\ud800"}',
      '[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]',
      '{"a":1,"a":2}',
      '{',
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{}}}',
    )
    .map((s) => Buffer.from(s)),
  fc.constant(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])),
);
const queryArb = fc.oneof(
  fc.constant(''),
  fc
    .array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom('office_id', 'state', 'response', 'page[cursor]', 'page[items]', 'x'),
          fc.array(fc.oneof(urlChar, hexByte), { maxLength: 8 }).map((a) => a.join('')),
        ),
        fc.oneof(
          fc.integer({ min: -10, max: 100_000 }).map(String),
          fc.constantFrom('ALL', 'MAPPED', 'detailed', '10', ''),
          fc.array(fc.oneof(urlChar, hexByte), { maxLength: 12 }).map((a) => a.join('')),
        ),
      ),
      { maxLength: 5 },
    )
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
);
const headersArb = fc.record(
  {
    'idempotency-key': fc.oneof(
      fc.uuid(),
      fc.string({ maxLength: 300 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
    ),
    prefer: fc.constantFrom('respond-async', 'wait=1', ''),
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ),
    'x-request-id': fc.string({ maxLength: 140 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
  },
  { requiredKeys: [] },
);
const signingArb = fc.constantFrom('seller', 'seller', 'seller', 'buyer', 'stranger', 'unsigned', 'bad-signature', 'garbage-token');

export const caseArb = fc.record({
  route: fc.nat({ max: ROUTES.length - 1 }),
  method: fc.nat({ max: 3 }),
  id: idArb,
  query: queryArb,
  body: bodyArb,
  headers: headersArb,
  signing: signingArb,
});
export type FuzzCase = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

export interface FuzzFigures {
  cases: number;
  byStatus: Record<string, number>;
  fivexx: number;
  badShape: number;
  failures: string[];
}

function send(base: URL, c: FuzzCase): Promise<{ status: number; text: string }> {
  const route = ROUTES[c.route]!;
  const method = route.methods[c.method % route.methods.length]!;
  const path = route.path(c.id);
  const target = c.query ? `${path}?${c.query}` : path;
  const headers: Record<string, string> = { ...c.headers };
  const cred = c.signing === 'buyer' ? BUYER : c.signing === 'stranger' ? STRANGER : SELLER;
  if (c.signing !== 'unsigned') {
    const rest = c.body && c.body.length > 0 ? c.body : c.query;
    headers['x-token'] = c.signing === 'garbage-token' ? 'not a token' : cred.token;
    headers['x-signature'] =
      c.signing === 'bad-signature'
        ? 'AAAA' + signatureFor(cred.secret, { method, host: hostWithoutPort(base.host), path, rest }).slice(4)
        : signatureFor(cred.secret, { method, host: hostWithoutPort(base.host), path, rest });
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: base.hostname, port: base.port, method, path: target, headers, agent: false, timeout: 30_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', reject);
    req.end(c.body);
  });
}

/** Whether an error answer has exactly the contract's shape. */
export function isContractError(text: string): boolean {
  try {
    const body = JSON.parse(text) as { errors?: unknown };
    return (
      Array.isArray(body.errors) &&
      body.errors.length > 0 &&
      body.errors.every(
        (e) =>
          typeof e === 'object' &&
          e !== null &&
          typeof (e as { code?: unknown }).code === 'string' &&
          typeof (e as { message?: unknown }).message === 'string',
      ) &&
      Object.keys(body).length === 1
    );
  } catch {
    return false;
  }
}

/** Runs `cases` generated requests in `lanes` parallel property runs (seeded: repeatable). */
export async function runFuzz(baseUrl: string, cases: number, seed: number, lanes = 4): Promise<FuzzFigures> {
  const base = new URL(baseUrl);
  const figures: FuzzFigures = { cases: 0, byStatus: {}, fivexx: 0, badShape: 0, failures: [] };
  const perLane = Math.ceil(cases / lanes);
  await Promise.all(
    Array.from({ length: lanes }, (_, lane) =>
      fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          const { status, text } = await send(base, c);
          figures.cases++;
          figures.byStatus[status] = (figures.byStatus[status] ?? 0) + 1;
          const wrongShape = status >= 400 && !isContractError(text);
          if (status >= 500) figures.fivexx++;
          if (wrongShape) figures.badShape++;
          if ((status >= 500 || wrongShape) && figures.failures.length < 20) {
            figures.failures.push(`${status} ${JSON.stringify({ ...c, body: c.body?.toString('latin1') })} -> ${text.slice(0, 200)}`);
          }
          // Not asserted here: one failure must not hide the others; the caller checks the figures.
          return true;
        }),
        { numRuns: perLane, seed: seed + lane, endOnFailure: true },
      ),
    ),
  );
  return figures;
}
