import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Queue } from 'bullmq';
import { sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** Debian's chromium (.ci/run installs it); CHROMIUM_PATH names another. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const SCREENSHOTS = path.resolve(import.meta.dirname, '../../docs/screenshots');
const TOKEN = 'browser-ops-token';

/** What the edge check reads of SVG elements in the page (the DOM's SVG types are not in this project's lib). */
type Measurable = { textContent: string | null; getBBox(): { x: number; y: number; width: number; height: number } };
type Traceable = { getTotalLength(): number; getPointAtLength(at: number): { x: number; y: number } };

describe('operator pages in a real browser', () => {
  let t: TestService;
  let browser: Browser;
  let page: Page;
  let redis: Redis;
  let queue: Queue;

  beforeAll(async () => {
    if (!CHROMIUM) throw new Error('no chromium: apt-get install chromium (or set CHROMIUM_PATH)');
    t = await startTestService({ env: { OPS_TOKEN: TOKEN } });
    await t.seed(baseFixture());
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    queue = new Queue('commands', { prefix: t.prefix, connection: redis });
    // A poisoned job (no actor): it fails on its only attempt, as a bug would make it.
    await queue.add(
      'order.accept',
      { commandId: 'poisoned-browser-1', payload: { order_id: 999 } },
      { jobId: 'poisoned-browser-1', attempts: 1 },
    );
    for (let i = 0; i < 100 && (await (await queue.getJob('poisoned-browser-1'))!.getState()) !== 'failed'; i++)
      await new Promise((r) => setTimeout(r, 50));
    // An order whose shipment was replaced, then had pickup details from both sides.
    const call = apiClient(t.url);
    const first = (await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 })).body.shipments[0].id;
    const second = (await call(SELLER, 'PUT', `/v9/shipments/${first}`, { mobile_transfer_type: 'XMobile' })).body.id;
    expect((await call(SELLER, 'PUT', `/v9/shipments/${second}/complete`, { x_mobile_link: 'https://x.test/1' })).status).toBeLessThan(500);
    await call(SELLER, 'POST', `/v9/orders/${ORDERS.localPickup}/accept`, { reviewer_id: 100 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    const context = await browser.newContext({
      httpCredentials: { username: 'ops', password: TOKEN },
      viewport: { width: 1280, height: 860 },
    });
    page = await context.newPage();
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await queue?.close();
    redis?.disconnect();
    await t?.stop();
  });

  it('refuses a browser without the token', async () => {
    const anonymous = await browser.newContext();
    const res = await anonymous.request.get(`${t.url}/ops/queues`);
    expect(res.status()).toBe(401);
    expect(res.headers()['www-authenticate']).toBe('Basic realm="fulfil ops"');
    // A browser with no password to offer gives up on the challenge rather than showing the board.
    await expect((await anonymous.newPage()).goto(`${t.url}/ops/queues`)).rejects.toThrow(/AUTH/);
    await anonymous.close();
  });

  it('logs in to the queue board, sees every queue and opens a failed job', async () => {
    await page.goto(`${t.url}/ops/queues`);
    for (const name of ['commands', 'inventory', 'fulfil-webhooks'])
      await expect(page.getByText(name, { exact: true }).first().waitFor()).resolves.toBeUndefined();
    await page
      .getByText(/Loading/)
      .first()
      .waitFor({ state: 'hidden' });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'queues.png') });

    await page.goto(`${t.url}/ops/queues/queue/commands?status=failed`);
    await page.getByText('poisoned-browser-1').first().waitFor();
    await page.goto(`${t.url}/ops/queues/queue/commands/poisoned-browser-1`);
    // The job's own page: its error and stack, its payload.
    await page
      .getByText(/malformed job/)
      .first()
      .waitFor();
    const text = await page.locator('body').innerText();
    expect(text).toContain('poisoned-browser-1');
    expect(text).toMatch(/at runCommand/); // the stack trace
    await page.screenshot({ path: path.join(SCREENSHOTS, 'queues-failed-job.png'), fullPage: true });
  });

  it('shows an order: its shipment chain, timeline, commands and the machine with the current state', async () => {
    const res = await page.goto(`${t.url}/ops/orders/${ORDERS.tbd}`);
    expect(res?.status()).toBe(200);
    const chain = await page.locator('#chain .ship').allInnerTexts();
    expect(chain).toHaveLength(2);
    expect(chain[0]).toMatch(/TBD/);
    expect(chain[1]).toMatch(/XMobile · delivered · live/);
    expect(await page.locator('#timeline tr').count()).toBe(4); // header and three transitions
    expect(await page.locator('#commands').innerText()).toMatch(/order\.accept\s+succeeded 200/);
    expect(await page.locator('#commands').innerText()).toMatch(/shipment\.complete\s+succeeded 200/);
    expect(await page.locator('svg.machine g.state.active[data-state="delivered"]').count()).toBe(1);
    expect(await page.locator('svg.machine g.state.active[data-state="pending"]').count()).toBe(0);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'order-view.png'), fullPage: true });

    await page.goto(`${t.url}/ops/orders/${ORDERS.localPickup}`);
    expect(await page.locator('svg.machine g.state.active[data-state="localPickup.seller.awaiting"]').count()).toBe(1);
    expect(await page.locator('svg.machine g.state.active[data-state="localPickup.buyer.awaiting"]').count()).toBe(1);
    // The search box takes an order id.
    await page.fill('input[name=id]', String(ORDERS.tbd));
    await page.click('button');
    await page.waitForURL(`**/ops/orders/${ORDERS.tbd}`);
  });

  it('draws the machines with no label over another (measured in the browser)', async () => {
    for (const id of [ORDERS.tbd, ORDERS.localPickup]) {
      await page.goto(`${t.url}/ops/orders/${id}`);
      const diagrams = await page.locator('svg.machine').count();
      expect(diagrams).toBe(2);
      for (let d = 0; d < diagrams; d++) {
        const texts = await page
          .locator('svg.machine')
          .nth(d)
          .locator('text')
          .evaluateAll((nodes) =>
            nodes.map((n) => {
              const r = n.getBoundingClientRect();
              return { text: n.textContent ?? '', x: r.x, y: r.y, w: r.width, h: r.height };
            }),
          );
        expect(texts.length).toBeGreaterThan(3);
        const clashes: string[] = [];
        for (let i = 0; i < texts.length; i++)
          for (let j = i + 1; j < texts.length; j++) {
            const a = texts[i]!;
            const b = texts[j]!;
            if (a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h) clashes.push(`${a.text} / ${b.text}`);
          }
        expect(clashes).toEqual([]);
      }
    }
  });

  it('draws no edge label over an edge, and labels in words (measured from the rendered SVG)', async () => {
    for (const id of [ORDERS.tbd, ORDERS.localPickup]) {
      await page.goto(`${t.url}/ops/orders/${id}`);
      const found = await page.locator('svg.machine').evaluateAll((svgs) =>
        svgs.map((svg) => {
          const labels = [...svg.querySelectorAll('text.label')]
            .map((t) => t as unknown as Measurable)
            .map((t) => ({
              text: t.textContent ?? '',
              box: t.getBBox(),
            }));
          const crossings: string[] = [];
          for (const edge of [...svg.querySelectorAll('path.edge')].map((p) => p as unknown as Traceable)) {
            const length = edge.getTotalLength();
            // Points every 2 px along the line, in the SVG's own coordinates (as getBBox gives the labels').
            for (let at = 0; at <= length; at += 2) {
              const p = edge.getPointAtLength(at);
              for (const { text, box } of labels) {
                if (p.x > box.x && p.x < box.x + box.width && p.y > box.y && p.y < box.y + box.height)
                  crossings.push(`${text} @ ${Math.round(p.x)},${Math.round(p.y)}`);
              }
            }
          }
          return { labels: labels.map((l) => l.text), crossings: [...new Set(crossings.map((c) => c.split(' @ ')[0]))] };
        }),
      );
      expect(found.length).toBe(2);
      expect(found.flatMap((f) => f.labels).length, `order ${id}: edge labels drawn`).toBeGreaterThan(0);
      for (const { labels, crossings } of found) {
        expect(crossings, `order ${id}`).toEqual([]);
        // Guards read as words: no bracketed code names such as [linkFitsType].
        for (const text of labels) expect(text, `order ${id}`).not.toMatch(/\[[a-z]+[A-Z]\w*\]|\b[a-z]+[A-Z][a-zA-Z]*\b/);
      }
    }
  });

  it('says on the page what is wrong with a filter, a date or an order id, keeping the form', async () => {
    for (const [url, status, said] of [
      ['/ops/orders?created_after=yesterday', 400, 'created_after: expected a date'],
      ['/ops/orders?colour=red', 400, 'colour: unknown filter'],
      ['/ops/orders?id=abc', 400, 'order id: expected an order id'],
      ['/ops/orders/999999', 404, 'there is no order 999999'],
    ] as const) {
      const res = await page.goto(`${t.url}${url}`);
      expect(res?.status(), url).toBe(status);
      expect(res?.headers()['content-type'], url).toMatch(/^text\/html/);
      await expect(page.locator('#problem').innerText(), url).resolves.toContain(said);
      expect(await page.locator('#filters').isVisible(), url).toBe(true);
    }
    // The form still works from there.
    await page.fill('input[name=id]', String(ORDERS.tbd));
    await page.click('nav button');
    await page.waitForURL(`**/ops/orders/${ORDERS.tbd}`);
  });

  it('shows what the buyer was sent: the recipient and the link, as the buyer reads the shipment', async () => {
    await page.goto(`${t.url}/ops/orders/${ORDERS.tbd}`);
    const sent = page.locator('#sent');
    expect(await sent.innerText()).toContain('Bo Buyer <bo@example.test>');
    expect(await sent.locator('tr[data-field="x_mobile_link"] a').getAttribute('href')).toBe('https://x.test/1');
    expect(await sent.innerText()).toMatch(/XMobile · delivered/);
    expect(await sent.locator('tr[data-field="email_address"] td').nth(1).innerText()).toBe('bo@example.test');
    expect(await page.locator('#order-seller').innerText()).toBe('Acme NYC (office 10) of Acme Tickets (brokerage 1)');
    await page.goto(`${t.url}/ops/orders/${ORDERS.flash}`);
    expect(await page.locator('#sent').innerText()).toContain('none yet');
  });

  it('finds an order by a filter and opens it', async () => {
    await page.goto(`${t.url}/ops/orders`);
    expect(await page.locator('#orders tr[data-order]').count()).toBe(Object.keys(ORDERS).length);
    await page.selectOption('#filters select[name=shipment_type]', 'LocalPickup');
    await page.click('#filters button');
    await page.waitForURL(/shipment_type=LocalPickup/);
    const rows = await page.locator('#orders tr[data-order]').allInnerTexts();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(new RegExp(`^${ORDERS.localPickup}\\s`));
    await page.screenshot({ path: path.join(SCREENSHOTS, 'order-search.png'), fullPage: true });
    await page.click(`#orders a[href="/ops/orders/${ORDERS.localPickup}"]`);
    await page.waitForURL(`**/ops/orders/${ORDERS.localPickup}`);
    expect(await page.locator('h1').innerText()).toContain(`Order ${ORDERS.localPickup}`);
  });

  it('follows a job from the queue board to its order', async () => {
    // The shipment.complete of the first order: its job names a shipment, not the order.
    const [complete] = (await t.db.database.db.execute(
      sql`select id from commands where name = 'shipment.complete' and status = 'succeeded'`,
    )) as unknown as Array<{ id: string }>;
    expect(complete).toBeDefined();
    await page.goto(`${t.url}/ops/queues/queue/commands/${complete!.id}`);
    await page.getByText(complete!.id).first().waitFor();
    await page.locator('#fulfil-job-order').waitFor({ state: 'visible' });
    await page.click('#fulfil-job-order');
    await page.waitForURL(`**/ops/orders/${ORDERS.tbd}`);
    expect(await page.locator('h1').innerText()).toContain(`Order ${ORDERS.tbd}`);
  });
});
