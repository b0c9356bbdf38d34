import http from 'node:http';
import { createCredential, revokeCredential } from '../src/auth/credentials.ts';
import { SecretBox } from '../src/auth/secret-box.ts';
import { canonicalQuery, signatureFor } from '../src/auth/signer.ts';
import type { Cluster } from './cluster.ts';
import { BUYER, reliableCommand, SELLER, STRANGER, newTally } from './flows.ts';
import { isContractError } from './fuzz.ts';

/**
 * Every way of tampering with a signed request, and every cross-tenant call, against every
 * authenticated route. A case passes when the answer is a 4xx in the contract's error shape
 * (no data at all) and Postgres shows nothing changed.
 */

interface Cred {
  token: string;
  secret: string;
}
interface Req {
  method: string;
  path: string;
  query?: string;
  body?: string;
}

interface Sent {
  status: number;
  text: string;
}

function raw(base: URL, method: string, target: string, headers: Record<string, string | string[]>, body?: string): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: base.hostname, port: base.port, method, path: target, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const target = (r: Req) => (r.query ? `${r.path}?${r.query}` : r.path);
const rest = (r: Req) => (r.body !== undefined && r.body !== '' ? r.body : canonicalQuery(r.query ?? ''));
const sig = (cred: Cred, r: Req, host = '127.0.0.1', over: Partial<Req> = {}) => {
  const s = { ...r, ...over };
  return signatureFor(cred.secret, { method: s.method, host, path: s.path, rest: rest(s) });
};

export interface AuthFigures {
  cases: number;
  refused: number;
  dataReturned: number;
  failures: string[];
}

export async function runAuthMatrix(c: Cluster, orderId: number, otherOrderId: number): Promise<AuthFigures> {
  const base = new URL(c.apiUrl);
  const tally = newTally();
  const deadline = Date.now() + 60_000;
  // A real command and shipment of the seller: the objects the other tenants try to reach.
  const accepted = await reliableCommand(c.apiUrl, SELLER, 'POST', `/v9/orders/${orderId}/accept`, { reviewer_id: 100 }, tally, deadline);
  if (accepted?.status !== 200) throw new Error(`auth matrix set-up: accept answered ${accepted?.status}`);
  const shipmentId = accepted.body.shipments[0].id as number;
  const [cmd] = await c.db.sql!`select id from commands where payload->>'order_id' = ${String(orderId)} limit 1`;
  const commandId = cmd!.id as string;
  const box = SecretBox.fromKey(c.secretKey);
  const revoked = await createCredential(c.db.db, box, { brokerageId: 1 });
  await revokeCredential(c.db.db, revoked.token);
  const before = await snapshot(c);

  const routes: Req[] = [
    { method: 'GET', path: '/v9/credentials/current' },
    { method: 'POST', path: '/v9/credentials/current/verify', body: '{"a":1}' },
    { method: 'GET', path: `/v9/commands/${commandId}` },
    { method: 'GET', path: '/v9/inventory', query: 'office_id=10' },
    { method: 'POST', path: `/v9/orders/${otherOrderId}/accept`, body: '{"reviewer_id":100}' },
    { method: 'PUT', path: `/v9/shipments/${shipmentId}`, body: '{"mobile_transfer_type":"XMobileLink","transfer_source":"ticketmaster"}' },
    { method: 'PUT', path: `/v9/shipments/${shipmentId}/complete`, body: '{}' },
  ];
  const figures: AuthFigures = { cases: 0, refused: 0, dataReturned: 0, failures: [] };
  const check = async (name: string, sent: Promise<Sent>, allowed: (s: number) => boolean) => {
    const { status, text } = await sent;
    figures.cases++;
    const ok = allowed(status) && isContractError(text);
    if (ok) figures.refused++;
    else {
      figures.dataReturned++;
      figures.failures.push(`${name}: ${status} ${text.slice(0, 160)}`);
    }
  };
  const is401 = (s: number) => s === 401;
  const is4xx = (s: number) => s >= 400 && s < 500;

  for (const r of routes) {
    const t = target(r);
    const h = (token: string, signature: string) => ({ 'x-token': token, 'x-signature': signature, 'content-type': 'application/json' });
    const good = sig(SELLER, r);
    const name = (what: string) => `${r.method} ${r.path}: ${what}`;
    await check(name('no credentials'), raw(base, r.method, t, {}, r.body), is401);
    await check(name('token only'), raw(base, r.method, t, { 'x-token': SELLER.token }, r.body), is401);
    await check(name('signature only'), raw(base, r.method, t, { 'x-signature': good }, r.body), is401);
    await check(name('signature made with another secret'), raw(base, r.method, t, h(SELLER.token, sig(STRANGER, r)), r.body), is401);
    await check(name("another credential's token with this signature"), raw(base, r.method, t, h(BUYER.token, good), r.body), is401);
    await check(name('unknown token'), raw(base, r.method, t, h('Z'.repeat(32), good), r.body), is401);
    await check(name('malformed token'), raw(base, r.method, t, h(`${SELLER.token}'--`, good), r.body), is401);
    await check(name('revoked credential'), raw(base, r.method, t, h(revoked.token, sig(revoked, r)), r.body), is401);
    await check(
      name('token sent twice'),
      raw(base, r.method, t, { 'x-token': [SELLER.token, SELLER.token], 'x-signature': good }, r.body),
      is401,
    );
    await check(name('signature truncated'), raw(base, r.method, t, h(SELLER.token, good.slice(0, -2)), r.body), is401);
    await check(
      name('signature of another method'),
      raw(base, r.method, t, h(SELLER.token, sig(SELLER, r, '127.0.0.1', { method: r.method === 'GET' ? 'POST' : 'GET' })), r.body),
      is401,
    );
    await check(
      name('signature of another path'),
      raw(base, r.method, t, h(SELLER.token, sig(SELLER, r, '127.0.0.1', { path: `${r.path}x` })), r.body),
      is401,
    );
    await check(
      name('signature for another host'),
      raw(base, r.method, t, h(SELLER.token, sig(SELLER, r, 'api.elsewhere.test')), r.body),
      is401,
    );
    if (r.body !== undefined) {
      await check(
        name('tampered body'),
        raw(base, r.method, t, h(SELLER.token, good), r.body.replace(/\d/, '7').replace('}', ',"x":1}')),
        is401,
      );
      await check(
        name('body signature replayed with the body as query'),
        raw(base, r.method, `${r.path}?${r.body}`, h(SELLER.token, good)),
        is401,
      );
      await check(name('body dropped'), raw(base, r.method, t, h(SELLER.token, good)), is401);
    } else {
      await check(
        name('tampered query'),
        raw(base, r.method, `${r.path}?${r.query ? `${r.query}1` : 'x=1'}`, h(SELLER.token, good)),
        is401,
      );
      await check(name('query signature replayed with a body'), raw(base, 'POST', r.path, h(SELLER.token, good), r.query ?? ''), (s) =>
        is4xx(s),
      );
    }
    // Cross-tenant: correctly signed by a brokerage that is not the seller.
    if (r.path !== '/v9/credentials/current' && r.path !== '/v9/credentials/current/verify') {
      for (const [who, cred] of [
        ['stranger', STRANGER],
        ['buyer', BUYER],
      ] as const) {
        await check(name(`cross-tenant (${who})`), raw(base, r.method, t, h(cred.token, sig(cred, r)), r.body), is4xx);
      }
    }
  }
  const after = await snapshot(c);
  if (JSON.stringify(before) !== JSON.stringify(after)) {
    figures.dataReturned++;
    figures.failures.push(`state changed: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
  }
  return figures;
}

/** What a successful tampering or cross-tenant call would change. */
async function snapshot(c: Cluster) {
  const sql = c.db.sql!;
  const [o] = await sql`select count(*) filter (where state <> 'pending')::int as touched from orders`;
  const [s] = await sql`select count(*)::int as rows, count(*) filter (where state = 'delivered')::int as delivered from shipments`;
  const [k] = await sql`select count(*) filter (where result_status between 200 and 299)::int as succeeded from commands`;
  return { ordersTouched: o!.touched, shipments: s!.rows, delivered: s!.delivered, succeeded: k!.succeeded };
}
