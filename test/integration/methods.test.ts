import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/auth/signer.ts';
import { errorBody } from '../../src/http/openapi/error-responses.ts';
import { baseFixture, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Unsupported methods answer 405 with Allow, and no method / Content-Type combination makes the
// service answer a 5xx (docs/API.md §Errors). fetch refuses TRACE and friends, so requests go
// through node:http, which sends any method token as given.

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'QUERY', 'PROPFIND'];

function send(
  base: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: string; signed?: boolean } = {},
) {
  const url = new URL(path, base);
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.signed) {
    const q = path.indexOf('?');
    const signed = signRequest({
      secret: SELLER.secret,
      method,
      host: url.hostname,
      path: url.pathname,
      query: q === -1 ? undefined : path.slice(q + 1),
      body: opts.body,
    });
    headers['x-token'] = SELLER.token;
    headers['x-signature'] = signed.signature;
  }
  if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      // JSON everywhere but the pages meant for a browser (a one-time link's page): those stay text.
      const json = /json/.test(String(res.headers['content-type'] ?? 'application/json'));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? (json ? JSON.parse(text) : text) : undefined }),
      );
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('methods and content types', () => {
  let t: TestService;
  let doc: { paths: Record<string, Record<string, unknown>> };
  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture());
    doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as typeof doc;
  });
  afterAll(async () => {
    await t?.stop();
  });

  /** Each documented path with ids filled in, and the methods it serves (HEAD with GET). */
  function documentedPaths(): Array<{ path: string; allowed: string[] }> {
    return Object.entries(doc.paths).map(([template, item]) => {
      const methods = Object.keys(item).map((m) => m.toUpperCase());
      if (methods.includes('GET')) methods.push('HEAD');
      return { path: template.replaceAll('{id}', '1'), allowed: methods.sort() };
    });
  }

  it('every other method on a documented path answers 405 with Allow, signed or not', async () => {
    const paths = documentedPaths();
    expect(paths.length).toBeGreaterThan(10);
    let refused = 0;
    for (const { path, allowed } of paths) {
      for (const method of METHODS.filter((m) => !allowed.includes(m))) {
        for (const signed of [false, true]) {
          const r = await send(t.url, method, path, { signed });
          expect(r.status, `${method} ${path} signed=${signed}`).toBe(405);
          expect(r.headers.allow, `${method} ${path}`).toBe(allowed.join(', '));
          // A HEAD answer has no body, by HTTP's rules.
          if (method !== 'HEAD') expect(errorBody.parse(r.body).errors[0]!.code).toBe('method_not_allowed');
          refused++;
        }
      }
    }
    expect(refused).toBeGreaterThan(100);
  });

  it('QUERY /livez without any header is a 405, not a 500; an unknown path stays 404 for any method', async () => {
    const r = await send(t.url, 'QUERY', '/livez');
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, HEAD');
    for (const method of ['GET', 'DELETE', 'TRACE']) {
      const unknown = await send(t.url, method, '/v9/nowhere');
      expect(unknown.status, method).toBe(404);
      expect(errorBody.parse(unknown.body).errors[0]!.code).toBe('not_found');
    }
    const query = await send(t.url, 'QUERY', '/nowhere');
    expect(query.status).toBe(400);
    expect(errorBody.parse(query.body).errors[0]!.code).toBe('invalid_params');
  });

  it('no method, Content-Type and body combination on any path answers a 5xx', async () => {
    const contentTypes = [
      undefined,
      'application/json',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      'bogus',
      ';;',
    ];
    const bodies = [undefined, '', '{', '{"reviewer_id":1}', 'a=1'];
    const statuses = new Map<number, number>();
    for (const { path } of [...documentedPaths(), { path: '/nowhere' }, { path: '/v9/inventory?office_id=10' }]) {
      for (const method of ['GET', 'POST', 'PUT', 'QUERY', 'DELETE']) {
        for (const type of contentTypes) {
          for (const body of bodies) {
            if ((method === 'GET' || method === 'DELETE') && body !== undefined) continue;
            const r = await send(t.url, method, path, { headers: type ? { 'content-type': type } : {}, body, signed: true });
            statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
            expect(r.status, `${method} ${path} ${type} ${body}: ${JSON.stringify(r.body)}`).toBeLessThan(500);
            const html = /^text\/html/.test(String(r.headers['content-type']));
            if (path.startsWith('/v9/')) expect(html, `${method} ${path}: an API answer in HTML`).toBe(false);
            if (r.status >= 400 && !html) errorBody.parse(r.body);
          }
        }
      }
    }
    // Both kinds of answer were reached: successes (GETs, the verify self-test) and refusals.
    expect([...statuses.keys()].sort()).toEqual(expect.arrayContaining([200, 400, 404, 405]));
  });
});
