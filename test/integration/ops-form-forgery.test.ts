import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { completedEticketOrder } from '../support/delivery-issue-flow.ts';
import { baseFixture, BUYER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Issue 54, finding 4 (D-162): the operator's browser sends the OPS_TOKEN (Basic) to the service
// with any request, so the ops forms that change something take a post only from the service's
// own page (Origin, else Referer) and with the form token of the operator's session.

const ORDERS = [991, 992];
const OPS_TOKEN = 'ops-token-for-the-forgery-test';
const BASIC = `Basic ${Buffer.from(`ops:${OPS_TOKEN}`).toString('base64')}`;

/** A raw HTTP request (a browser's headers, Host included, as given), answering status and body. */
function send(url: string, opts: { method: string; path: string; headers: Record<string, string>; body?: string }) {
  return new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const u = new URL(url);
    const req = http.request({ host: u.hostname, port: u.port, method: opts.method, path: opts.path, headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('ops forms refuse posts from other sites', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let issue: number;
  let host: string;

  beforeAll(async () => {
    t = await startTestService({ env: { OPS_TOKEN, OPS_WRITE: 'true' } });
    call = apiClient(t.url);
    await t.seed(baseFixture(ORDERS));
    await completedEticketOrder(call, ORDERS[0]!);
    const opened = await call(BUYER, 'POST', `/v9/orders/${ORDERS[0]}/delivery_issues`, { reason: 'not_received' });
    issue = opened.body.id as number;
    expect((await call(BUYER, 'POST', `/v9/delivery_issues/${issue}/escalate`, {})).status).toBe(200);
    host = new URL(t.url).host;
  });
  afterAll(async () => {
    await t?.stop();
  });

  /** The operator's session: the page sets its cookie and carries its form token. */
  async function session(hostHeader = host): Promise<{ cookie: string; token: string }> {
    const page = await send(t.url, { method: 'GET', path: '/ops/delivery_issues', headers: { authorization: BASIC, host: hostHeader } });
    expect(page.status).toBe(200);
    const cookie = String(page.headers['set-cookie']).split(';')[0]!;
    expect(String(page.headers['set-cookie'])).toMatch(/; Path=\/ops; HttpOnly; SameSite=Strict/);
    return { cookie, token: /name="form_token" value="([^"]+)"/.exec(page.body)![1]! };
  }

  const close = (s: { cookie: string; token: string }, headers: Record<string, string>, id = issue) =>
    send(t.url, {
      method: 'POST',
      path: `/ops/delivery_issues/${id}/close`,
      headers: { authorization: BASIC, 'content-type': 'application/x-www-form-urlencoded', cookie: s.cookie, host, ...headers },
      body: new URLSearchParams({ form_token: s.token, outcome: 'seller_at_fault' }).toString(),
    });

  async function stillEscalated(): Promise<void> {
    expect((await call(BUYER, 'GET', `/v9/delivery_issues/${issue}`)).body.state).toBe('escalated');
  }

  it('refuses a foreign Origin with valid credentials, cookie and token, and no fetch-metadata headers', async () => {
    const s = await session();
    const forged = await close(s, { origin: 'https://evil.example' });
    expect(forged.status).toBe(403);
    expect(forged.body).toContain('refused: the form was sent from another site');
    await stillEscalated();
  });

  it('refuses a post naming no origin at all (no Origin, no Referer, no Sec-Fetch-*)', async () => {
    const s = await session();
    const bare = await close(s, {});
    expect(bare.status).toBe(403);
    expect(bare.body).toContain('names no origin');
    await stillEscalated();
  });

  it('refuses same-site from a sibling subdomain', async () => {
    const own = `ops.example.test:${new URL(t.url).port}`;
    const s = await session(own);
    const sibling = await close(s, { host: own, origin: `http://shop.example.test:${new URL(t.url).port}`, 'sec-fetch-site': 'same-site' });
    expect(sibling.status).toBe(403);
    expect(sibling.body).toContain('refused: the form was sent from another site');
    await stillEscalated();
  });

  it('refuses its own origin without the form token, or with the token of another session', async () => {
    const s = await session();
    const other = await session();
    expect(other.cookie).not.toBe(s.cookie);
    const origin = `http://${host}`;
    expect((await close({ cookie: s.cookie, token: '' }, { origin })).status).toBe(403);
    const crossed = await close({ cookie: s.cookie, token: other.token }, { origin });
    expect(crossed.status).toBe(403);
    expect(crossed.body).toContain('form token is missing or not of this session');
    expect((await close({ cookie: '', token: s.token }, { origin })).status).toBe(403);
    await stillEscalated();
  });

  it('takes the form from its own page: Origin, or Referer where a browser sends no Origin', async () => {
    const s = await session();
    const closed = await close(s, { referer: `http://${host}/ops/delivery_issues` });
    expect(closed.status).toBe(200);
    expect(closed.body).toContain(`issue ${issue} closed: seller_at_fault`);
    expect((await call(BUYER, 'GET', `/v9/delivery_issues/${issue}`)).body.state).toBe('closed');
  });

  it('the queue board takes changes from its own page only', async () => {
    const retry = (headers: Record<string, string>) =>
      send(t.url, {
        method: 'PUT',
        path: '/ops/queues/api/queues/commands/retry/failed',
        headers: { authorization: BASIC, host, ...headers },
      });
    const forged = await retry({ origin: 'https://evil.example' });
    expect(forged.status).toBe(403);
    expect(JSON.parse(forged.body).errors[0].message).toContain('refused: the form was sent from another site');
    expect((await retry({})).status).toBe(403);
    expect((await retry({ origin: `http://${host}` })).status).not.toBe(403);
  });
});
