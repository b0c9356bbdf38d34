import { webcrypto } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/auth/signer.ts';
import { SIGN_IN_BROWSER_JS, signInBrowserInterceptor } from '../../src/http/openapi/sign-in-browser.ts';
import { SIGN_IN_FORM_JS, swaggerUiPlugins } from '../../src/http/openapi/sign-in-form.ts';

// The script /docs runs before each "Try it out" request, run here in a bare context holding
// only what a browser page offers, against the signing vectors and the server's verifier.

const SECRET = '/3uZ9bXNe/6rxEBmlGLvoRXrcSzRDMfyJSewhlrc';
const H = 'api.sandbox.ticketevolution.com';

type Req = { url: string; method: string; headers: Record<string, string>; body?: string };

function browser() {
  const window: Record<string, unknown> = { location: { href: `https://${H}/docs/` } };
  runInNewContext(SIGN_IN_BROWSER_JS, { window, URL, TextEncoder, btoa, crypto: webcrypto });
  const sign = window.fulfilSign as (req: Req) => Promise<Req>;
  return { window, sign };
}

describe('signing in the /docs page', () => {
  it('reproduces the /v9 test vector from the secret typed into X-Signature', async () => {
    const { sign } = browser();
    const req = await sign({
      url: `https://${H}/v9/test?one=1&three=three&two=two`,
      method: 'get',
      headers: { 'X-Token': 't', 'X-Signature': SECRET },
    });
    expect(req.headers).toEqual({ 'X-Token': 't', 'X-Signature': 'YbwEmJL9P0hvpplEr2q2iL4Mpz+KevHUOjzgYh0ewh4=' });
  });

  it('signs a body and an unsorted query in forms the server verifies', async () => {
    const { sign } = browser();
    const body = '{"mobile_transfer_type":"XMobile","note":"Zoë"}';
    const put = await sign({ url: `https://${H}:8443/v9/shipments/5`, method: 'PUT', headers: { 'x-signature': SECRET }, body });
    expect(
      verifySignature(
        SECRET,
        { method: 'PUT', host: `${H}:8443`, url: '/v9/shipments/5', body: Buffer.from(body) },
        put.headers['X-Signature']!,
      ),
    ).toBe(true);
    const query = 'office_id=10&state=MAPPED&page%5Bitems%5D=2&page%5Bcursor%5D=1';
    const get = await sign({ url: `https://${H}/v9/inventory?${query}`, method: 'GET', headers: { 'X-Signature': SECRET } });
    expect(verifySignature(SECRET, { method: 'GET', host: H, url: `/v9/inventory?${query}` }, get.headers['X-Signature']!)).toBe(true);
    expect(verifySignature(SECRET.slice(1), { method: 'GET', host: H, url: `/v9/inventory?${query}` }, get.headers['X-Signature']!)).toBe(
      false,
    );
  });

  it('leaves requests outside /v9, or without a secret, as they are', async () => {
    const { sign } = browser();
    const health = { url: `https://${H}/readyz`, method: 'GET', headers: { 'X-Signature': SECRET } };
    expect(await sign(structuredClone(health))).toEqual(health);
    const unsigned = { url: `https://${H}/v9/orders/1`, method: 'GET', headers: {} };
    expect(await sign(structuredClone(unsigned))).toEqual(unsigned);
  });

  it('the interceptor handed to Swagger UI is plain source that calls the script', () => {
    expect(String(signInBrowserInterceptor)).toMatch(/window\.fulfilSign\(req\)/);
    expect(String(signInBrowserInterceptor)).not.toMatch(/__name|require\(/);
  });

  it('the sign-in form plugin is plain source, and Swagger UI keeps the plugin that loads the document', () => {
    const sources = swaggerUiPlugins.map(String);
    expect(sources[0]).toMatch(/SwaggerUIBundle\.plugins\.DownloadUrl\(system\)/);
    expect(sources[1]).toMatch(/window\.fulfilSignInForm\(system\)/);
    for (const source of [...sources, SIGN_IN_FORM_JS]) expect(source).not.toMatch(/__name|require\(/);
    const window: Record<string, unknown> = {};
    runInNewContext(SIGN_IN_FORM_JS, { window });
    expect(typeof window.fulfilSignInForm).toBe('function');
  });
});
