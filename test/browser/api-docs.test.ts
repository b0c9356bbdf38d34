import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const DEMO = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../fixtures/demo.json'), 'utf8')) as {
  brokerages: Array<{ credentials: Array<{ kind: string; token: string; secret: string }> }>;
};
const ACME = DEMO.brokerages[0]!.credentials.find((c) => c.kind === 'api')!;
const SCREENSHOT = path.resolve(import.meta.dirname, '../../docs/screenshots/api-docs-sign-in.png');

/** /docs (Swagger UI) as a newcomer uses it, on the demo data, in a real browser. */
describe('the API reference page', () => {
  let t: TestService;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    if (!CHROMIUM) throw new Error('no chromium: apt-get install chromium (or set CHROMIUM_PATH)');
    t = await startTestService();
    await t.seed(DEMO);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await (await browser.newContext()).newPage();
    await page.goto(`${t.url}/docs`);
    await page.waitForSelector('button.authorize');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  /** Opens the sign-in dialog, fills the boxes given and presses its one Authorize button. */
  async function signIn(values: { token?: string; secret?: string }) {
    await page.click('button.authorize');
    const form = page.locator('.modal-ux .auth-container');
    if (values.token !== undefined) await form.getByLabel('Token').fill(values.token);
    if (values.secret !== undefined) await form.getByLabel('Secret').fill(values.secret);
    await form.locator('button', { hasText: 'Authorize' }).click();
    await page.click('.modal-ux .btn-done');
  }

  async function executeAccept(orderId: string): Promise<{ status: string; body: string }> {
    const op = page.locator('.opblock', { has: page.locator('[data-path="/v9/orders/{id}/accept"]') });
    if (!(await op.locator('.opblock-body').count())) await op.locator('.opblock-summary').first().click();
    // The body renders after the click: wait for its button before reading what it says, or a
    // count taken too early finds none and the inputs stay disabled.
    const tryOut = op.locator('button.try-out__btn');
    await tryOut.waitFor();
    if ((await tryOut.textContent())?.includes('Try it out')) await tryOut.click();
    await op.locator('input[placeholder="id"]').fill(orderId);
    await op.locator('button.execute').click();
    const status = op.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    const result = {
      status: (await status.textContent())!.trim(),
      body: (await op.locator('.live-responses-table tbody .microlight').first().textContent())!,
    };
    await op.locator('button.btn-clear').click();
    return result;
  }

  it('signs in with one form: the token, the secret in a password box, one Authorize button', async () => {
    await page.click('button.authorize');
    const dialog = page.locator('.modal-ux');
    await dialog.waitFor();
    expect(await dialog.locator('.auth-container').count()).toBe(1);
    expect(await dialog.locator('button', { hasText: /^Authorize$/ }).count()).toBe(1);
    const inputs = dialog.locator('input');
    expect(await inputs.count()).toBe(2);
    expect(await dialog.getByLabel('Token').getAttribute('type')).toBe('text');
    expect(await dialog.getByLabel('Secret').getAttribute('type')).toBe('password');
    await dialog.getByLabel('Token').fill(ACME.token);
    await dialog.getByLabel('Secret').fill(ACME.secret);
    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    // Closed without signing in: the next tests sign in step by step.
    await dialog.locator('.btn-done').click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('with only the token given, a call answers 401 naming the missing X-Signature', async () => {
    await signIn({ token: ACME.token });
    const refused = await executeAccept('700');
    expect(refused.status).toBe('401');
    expect(refused.body).toContain('no X-Signature header');
  });

  it('with both, the example accept body works on the demo data', async () => {
    await signIn({ secret: ACME.secret });
    const accepted = await executeAccept('700');
    expect([accepted.status, accepted.body]).toEqual(['200', expect.stringContaining('"state": "accepted"')]);
  });

  it('keeps the token and the secret out of browser storage, and says so', async () => {
    const stored = String(await page.evaluate('JSON.stringify({ ...localStorage, ...sessionStorage })'));
    expect(stored).not.toContain(ACME.token);
    expect(stored).not.toContain(ACME.secret);
    expect(await page.locator('.info').textContent()).toMatch(/stay in this page's memory only/);
  });

  it('shows error examples with the code of their status, never a made-up replaced_by', async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown; example?: unknown }> }> }>
      >;
    };
    const { ERROR_STATUSES, ROUTE_CODES } = await import('../../src/http/openapi/error-responses.ts');
    const codesOf = (status: number) => [
      ERROR_STATUSES[status as keyof typeof ERROR_STATUSES][0],
      ...Object.entries(ROUTE_CODES).flatMap(([code, s]) => (s === status ? [code] : [])),
    ];
    let seen = 0;
    for (const ops of Object.values(doc.paths)) {
      for (const op of Object.values(ops)) {
        for (const [status, response] of Object.entries(op.responses)) {
          const media = response.content?.['application/json'];
          if (!/^\d{3}$/.test(status) || Number(status) < 400 || !JSON.stringify(media?.schema ?? {}).includes('ErrorBody')) continue;
          const example = response.content?.['application/json']?.example as { errors: Array<{ code: string; replaced_by?: number }> };
          expect(codesOf(Number(status)), status).toContain(example?.errors[0]?.code);
          if (example.errors[0]!.replaced_by !== undefined) expect(example.errors[0]!.replaced_by).toBeGreaterThan(0);
          seen++;
        }
      }
    }
    expect(seen).toBeGreaterThan(20);
  });
});
