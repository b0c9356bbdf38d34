import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  acceptedStringsToSign,
  canonicalQuery,
  hostWithoutPort,
  parseQuery,
  signatureFor,
  signRequest,
  stringToSign,
  topLevelSortedQuery,
  verifySignature,
  type IncomingRequest,
} from '../../src/auth/signer.ts';

// The test vectors of docs/API.md §Signature.
const SECRET = '/3uZ9bXNe/6rxEBmlGLvoRXrcSzRDMfyJSewhlrc';
const H = 'api.sandbox.ticketevolution.com';
const BODY = '{"one":1,"two":"two","three":"three"}';

const hmac = (s: string) => createHmac('sha256', SECRET).update(s).digest('base64');

describe('docs/API.md §Signature vectors', () => {
  it.each([
    ['GET', '/test', '', '1Ra2c8cbuw1G5Pw8BWaowDlMcxwMte8y/sL+vW2H4mY='],
    ['GET', '/test', 'one=1&three=three&two=two', '8eaaqg6d4DJ2SEWkCvkdhc05dITmpNbUrcbN75UBGMA='],
    ['POST', '/test', BODY, '6PMaU8JQ5kH4PZLl8agJrZRZqnn65UGcCUA80E2dTDg='],
    ['PUT', '/test', BODY, 'JEwlN3cuRXnb6rQlaorVYtlbGbBQRXs792YGQaH5BoM='],
    ['GET', '/v9/test', 'one=1&three=three&two=two', 'YbwEmJL9P0hvpplEr2q2iL4Mpz+KevHUOjzgYh0ewh4='],
  ])('%s %s?%s', (method, path, rest, expected) => {
    expect(stringToSign({ method, host: H, path, rest }).toString()).toBe(`${method} ${H}${path}?${rest}`);
    expect(signatureFor(SECRET, { method, host: H, path, rest })).toBe(expected);
  });

  it('signRequest reproduces each vector from unsorted params, a port and a lower-case method', () => {
    const sign = (method: string, path: string, query?: Record<string, string | number>, body?: string) =>
      signRequest({ secret: SECRET, method, host: `${H}:443`, path, query, body }).signature;
    expect(sign('get', '/test')).toBe('1Ra2c8cbuw1G5Pw8BWaowDlMcxwMte8y/sL+vW2H4mY=');
    expect(sign('GET', '/test', { two: 'two', one: 1, three: 'three' })).toBe('8eaaqg6d4DJ2SEWkCvkdhc05dITmpNbUrcbN75UBGMA=');
    expect(sign('POST', '/test', undefined, BODY)).toBe('6PMaU8JQ5kH4PZLl8agJrZRZqnn65UGcCUA80E2dTDg=');
    expect(sign('put', '/test', undefined, BODY)).toBe('JEwlN3cuRXnb6rQlaorVYtlbGbBQRXs792YGQaH5BoM=');
    expect(sign('GET', '/v9/test', { three: 'three', two: 'two', one: '1' })).toBe('YbwEmJL9P0hvpplEr2q2iL4Mpz+KevHUOjzgYh0ewh4=');
  });

  it('each vector verifies as an incoming request, and fails with another secret', () => {
    const incoming: Array<[IncomingRequest, string]> = [
      [{ method: 'GET', host: H, url: '/test' }, '1Ra2c8cbuw1G5Pw8BWaowDlMcxwMte8y/sL+vW2H4mY='],
      [{ method: 'GET', host: H, url: '/test?two=two&one=1&three=three' }, '8eaaqg6d4DJ2SEWkCvkdhc05dITmpNbUrcbN75UBGMA='],
      [{ method: 'POST', host: H, url: '/test', body: Buffer.from(BODY) }, '6PMaU8JQ5kH4PZLl8agJrZRZqnn65UGcCUA80E2dTDg='],
      [{ method: 'PUT', host: H, url: '/test', body: Buffer.from(BODY) }, 'JEwlN3cuRXnb6rQlaorVYtlbGbBQRXs792YGQaH5BoM='],
      [{ method: 'GET', host: H, url: '/v9/test?one=1&three=three&two=two' }, 'YbwEmJL9P0hvpplEr2q2iL4Mpz+KevHUOjzgYh0ewh4='],
    ];
    for (const [req, signature] of incoming) {
      expect(verifySignature(SECRET, req, signature)).toBe(true);
      expect(verifySignature(SECRET.replace('/3u', '/3v'), req, signature)).toBe(false);
    }
  });
});

describe('canonical query', () => {
  it('sorts pairs by percent-encoded key and encodes brackets', () => {
    expect(canonicalQuery('page[items]=2&page[cursor]=1')).toBe('page%5Bcursor%5D=1&page%5Bitems%5D=2');
    expect(canonicalQuery({ 'page[items]': 2, 'page[cursor]': 1, office_id: 7 })).toBe('office_id=7&page%5Bcursor%5D=1&page%5Bitems%5D=2');
  });

  it('is the same whether the query arrives encoded or not', () => {
    expect(canonicalQuery('page%5Bitems%5D=2&page%5Bcursor%5D=1')).toBe(canonicalQuery('page[items]=2&page[cursor]=1'));
  });

  it('sorts by the encoded key, in code-unit order (upper case before "_" before lower case)', () => {
    expect(canonicalQuery('b=1&a_b=2&a=3&B=4&a%5B=5')).toBe('B=4&a=3&a%5B=5&a_b=2&b=1');
  });

  it('keeps repeated keys in the order received (stable sort)', () => {
    expect(canonicalQuery('z=0&ids[]=3&ids[]=1&ids[]=2')).toBe('ids%5B%5D=3&ids%5B%5D=1&ids%5B%5D=2&z=0');
    expect(canonicalQuery({ ids: [3, 1], a: true })).toBe('a=true&ids=3&ids=1');
  });

  it("encodes per RFC 3986: space as %20 (a received '+' is a space), and !'()*", () => {
    expect(canonicalQuery("q=a+b c&x=!'()*~-._")).toBe('q=a%20b%20c&x=%21%27%28%29%2A~-._');
    expect(canonicalQuery({ name: 'Zoë & co' })).toBe('name=Zo%C3%AB%20%26%20co');
  });

  it('keeps a malformed escape literally and drops empty segments; a bare key gets an empty value', () => {
    expect(parseQuery('a=%zz&&b')).toEqual([
      ['a', '%zz'],
      ['b', ''],
    ]);
    expect(canonicalQuery('b&&a=%zz')).toBe('a=%25zz&b=');
  });

  it('is empty for no query, with or without a leading "?"', () => {
    expect(canonicalQuery('')).toBe('');
    expect(canonicalQuery('?b=2&a=1')).toBe('a=1&b=2');
    expect(canonicalQuery({})).toBe('');
    expect(canonicalQuery({ a: undefined, b: null })).toBe('');
  });

  it('accepts URLSearchParams and pair lists', () => {
    expect(
      canonicalQuery(
        new URLSearchParams([
          ['b', '2'],
          ['a', '1'],
        ]),
      ),
    ).toBe('a=1&b=2');
    expect(
      canonicalQuery([
        ['b', 2],
        ['a', 'x y'],
      ]),
    ).toBe('a=x%20y&b=2');
  });
});

describe('top-level sorted query (compatibility form)', () => {
  it('keeps the received order within one top-level name', () => {
    expect(topLevelSortedQuery('state=ALL&page[items]=2&page[cursor]=1&office_id=7')).toBe(
      'office_id=7&page%5Bitems%5D=2&page%5Bcursor%5D=1&state=ALL',
    );
  });

  it('differs from the canonical form exactly when sub-keys arrive out of order', () => {
    expect(topLevelSortedQuery('page[cursor]=1&page[items]=2')).toBe(canonicalQuery('page[cursor]=1&page[items]=2'));
    expect(topLevelSortedQuery('page[items]=2&page[cursor]=1')).not.toBe(canonicalQuery('page[items]=2&page[cursor]=1'));
  });
});

describe('hostWithoutPort', () => {
  it.each([
    ['api.example.com', 'api.example.com'],
    ['api.example.com:8443', 'api.example.com'],
    ['127.0.0.1:3000', '127.0.0.1'],
    ['[::1]:3000', '[::1]'],
    ['[::1]', '[::1]'],
  ])('%s → %s', (host, expected) => expect(hostWithoutPort(host)).toBe(expected));
});

describe('accepted strings to sign', () => {
  const strings = (req: IncomingRequest) => acceptedStringsToSign(req).map((b) => b.toString());

  it('GET: canonical, top-level sorted and raw query, each with the host without and with port', () => {
    const raw = 'state=ALL&page[items]=2&page[cursor]=1&office_id=7';
    const got = strings({ method: 'GET', host: 'api.example.com:8443', url: `/v9/inventory?${raw}` });
    const canonical = 'office_id=7&page%5Bcursor%5D=1&page%5Bitems%5D=2&state=ALL';
    const topLevel = 'office_id=7&page%5Bitems%5D=2&page%5Bcursor%5D=1&state=ALL';
    expect(got.sort()).toEqual(
      [
        `GET api.example.com/v9/inventory?${canonical}`,
        `GET api.example.com/v9/inventory?${topLevel}`,
        `GET api.example.com/v9/inventory?${raw}`,
        `GET api.example.com:8443/v9/inventory?${canonical}`,
        `GET api.example.com:8443/v9/inventory?${topLevel}`,
        `GET api.example.com:8443/v9/inventory?${raw}`,
      ].sort(),
    );
  });

  it('with PUBLIC_HOST, only its names (with and without port) are signed hosts, never the Host header', () => {
    const got = strings({ method: 'GET', host: 'internal:8080', url: '/v9/x', publicHosts: ['api.example.com:443', 'api.example.org'] });
    expect(got.sort()).toEqual(['GET api.example.com/v9/x?', 'GET api.example.com:443/v9/x?', 'GET api.example.org/v9/x?']);
  });

  it('the raw query form only when it is in query syntax: a JSON text as query verifies no body signature', () => {
    const body = '{"reviewer_id":100}';
    const got = strings({ method: 'POST', host: 'h', url: `/v9/orders/1/accept?${body}` });
    expect(got).not.toContain(`POST h/v9/orders/1/accept?${body}`);
    const signedOverBody = hmac(`POST h/v9/orders/1/accept?${body}`);
    expect(
      verifySignature(SECRET, { method: 'POST', host: 'h', url: '/v9/orders/1/accept', body: Buffer.from(body) }, signedOverBody),
    ).toBe(true);
    expect(verifySignature(SECRET, { method: 'POST', host: 'h', url: `/v9/orders/1/accept?${body}` }, signedOverBody)).toBe(false);
    expect(
      verifySignature(SECRET, { method: 'POST', host: 'h', url: `/v9/orders/1/accept?${encodeURIComponent(body)}` }, signedOverBody),
    ).toBe(false);
  });

  it('a body replaces the query, byte for byte (even bytes that are not UTF-8)', () => {
    const body = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const [first, ...others] = acceptedStringsToSign({ method: 'POST', host: 'h', url: '/v9/x?a=1', body });
    expect(others).toEqual([]);
    expect(first).toEqual(Buffer.concat([Buffer.from('POST h/v9/x?'), body]));
  });

  it('an empty body counts as no body: the query is signed', () => {
    expect(strings({ method: 'POST', host: 'h', url: '/v9/x?b=2&a=1', body: Buffer.alloc(0) })).toContain('POST h/v9/x?a=1&b=2');
  });
});

describe('verifySignature with each compatibility form', () => {
  const base = { method: 'GET', host: 'api.example.com:8443', url: '/v9/inventory?page[items]=2&page[cursor]=1&office_id=7' };
  const sig = (s: string) => hmac(s);

  it.each([
    ['canonical sorted', 'GET api.example.com/v9/inventory?office_id=7&page%5Bcursor%5D=1&page%5Bitems%5D=2'],
    ['stable-sorted by top-level name', 'GET api.example.com/v9/inventory?office_id=7&page%5Bitems%5D=2&page%5Bcursor%5D=1'],
    ['raw query as received', 'GET api.example.com/v9/inventory?page[items]=2&page[cursor]=1&office_id=7'],
    ['host with port', 'GET api.example.com:8443/v9/inventory?office_id=7&page%5Bcursor%5D=1&page%5Bitems%5D=2'],
  ])('accepts the %s form', (_name, s) => {
    expect(verifySignature(SECRET, base, sig(s))).toBe(true);
  });

  it('accepts PUBLIC_HOST only when configured', () => {
    const s = sig('GET api.example.com/v9/x?');
    expect(verifySignature(SECRET, { method: 'GET', host: 'internal:8080', url: '/v9/x' }, s)).toBe(false);
    expect(verifySignature(SECRET, { method: 'GET', host: 'internal:8080', url: '/v9/x', publicHosts: ['api.example.com'] }, s)).toBe(true);
    // Pinned: a signature for any other name fails even when sent with that name as Host.
    const forOther = sig('GET evil.example.net/v9/x?');
    expect(
      verifySignature(SECRET, { method: 'GET', host: 'evil.example.net', url: '/v9/x', publicHosts: ['api.example.com'] }, forOther),
    ).toBe(false);
    expect(verifySignature(SECRET, { method: 'GET', host: 'evil.example.net', url: '/v9/x' }, forOther)).toBe(true);
  });

  it.each([
    ['received order, encoded but not sorted', 'GET api.example.com/v9/inventory?page%5Bitems%5D=2&page%5Bcursor%5D=1&office_id=7'],
    ['another method', 'POST api.example.com/v9/inventory?office_id=7&page%5Bcursor%5D=1&page%5Bitems%5D=2'],
    ['another path', 'GET api.example.com/v9/inventor?office_id=7&page%5Bcursor%5D=1&page%5Bitems%5D=2'],
    ['another host', 'GET api.example.org/v9/inventory?office_id=7&page%5Bcursor%5D=1&page%5Bitems%5D=2'],
    ['another value', 'GET api.example.com/v9/inventory?office_id=8&page%5Bcursor%5D=1&page%5Bitems%5D=2'],
    ['no "?"', 'GET api.example.com/v9/inventoryoffice_id=7&page%5Bcursor%5D=1&page%5Bitems%5D=2'],
  ])('refuses %s', (_name, s) => {
    expect(verifySignature(SECRET, base, sig(s))).toBe(false);
  });

  it('refuses a signature of another length, unpadded, or empty, without throwing', () => {
    const good = sig('GET api.example.com/v9/inventory?office_id=7&page%5Bcursor%5D=1&page%5Bitems%5D=2');
    expect(verifySignature(SECRET, base, good)).toBe(true);
    expect(verifySignature(SECRET, base, good.replace(/=$/, ''))).toBe(false);
    expect(verifySignature(SECRET, base, `${good}x`)).toBe(false);
    expect(verifySignature(SECRET, base, '')).toBe(false);
  });

  it('a body request verifies only against the body, not the query', () => {
    const req = { method: 'POST', host: 'h', url: '/v9/x?a=1', body: Buffer.from(BODY) };
    expect(verifySignature(SECRET, req, sig(`POST h/v9/x?${BODY}`))).toBe(true);
    expect(verifySignature(SECRET, req, sig('POST h/v9/x?a=1'))).toBe(false);
    expect(verifySignature(SECRET, { ...req, body: Buffer.from(BODY.replace('1', '2')) }, sig(`POST h/v9/x?${BODY}`))).toBe(false);
  });
});

describe('signRequest', () => {
  it('returns the canonical query to send and a target that carries it', () => {
    const s = signRequest({ secret: SECRET, method: 'GET', host: 'h:1', path: '/v9/x', query: 'page[items]=2&page[cursor]=1' });
    expect(s.query).toBe('page%5Bcursor%5D=1&page%5Bitems%5D=2');
    expect(s.target).toBe('/v9/x?page%5Bcursor%5D=1&page%5Bitems%5D=2');
    expect(s.signature).toBe(hmac('GET h/v9/x?page%5Bcursor%5D=1&page%5Bitems%5D=2'));
    expect(signRequest({ secret: SECRET, method: 'GET', host: 'h', path: '/v9/x' }).target).toBe('/v9/x');
  });

  it('ignores a body on GET (none is sent) and signs the query of an empty-bodied POST', () => {
    expect(signRequest({ secret: SECRET, method: 'GET', host: 'h', path: '/p', query: { a: 1 }, body: '{}' }).signature).toBe(
      hmac('GET h/p?a=1'),
    );
    expect(signRequest({ secret: SECRET, method: 'POST', host: 'h', path: '/p', query: { a: 1 }, body: '' }).signature).toBe(
      hmac('POST h/p?a=1'),
    );
    expect(signRequest({ secret: SECRET, method: 'POST', host: 'h', path: '/p', body: new Uint8Array([0x7b, 0x7d]) }).signature).toBe(
      hmac('POST h/p?{}'),
    );
  });
});
