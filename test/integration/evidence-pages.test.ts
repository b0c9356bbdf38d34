import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidencePage } from '../../src/read/delivery-evidence.ts';
import type { EvidenceEntry } from '../../src/read/evidence-sources.ts';
import { signedFetch } from '../../src/auth/signed-fetch.ts';
import { apiClient } from '../support/api.ts';
import { completedEticketOrder } from '../support/delivery-issue-flow.ts';
import { baseFixture, BUYER, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

// Issue 54, finding 5 (D-178): the evidence of delivery grows with every download and link use,
// so it is answered a page at a time, as the tracking events are.

const ORDER = 995;

describe('GET /v9/orders/:id/delivery_evidence pages', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture([ORDER]));
    call = apiClient(t.url);
    const { etickets } = await completedEticketOrder(call, ORDER);
    // Each download is an entry: the timeline grows with them.
    for (let i = 0; i < 6; i++) {
      const e = etickets[i % 2]!;
      const res = await signedFetch(t.url, BUYER, 'GET', e.url.startsWith('http') ? new URL(e.url).pathname : e.url);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('walks the whole timeline page by page, each entry once, in order, ending with next_cursor null', async () => {
    const all = await call(SELLER, 'GET', `/v9/orders/${ORDER}/delivery_evidence?page[items]=500`);
    expect(all.status).toBe(200);
    expect(all.body.next_cursor).toBeNull();
    const timeline = all.body.timeline as Array<{ at: string; what: string }>;
    expect(timeline.filter((e) => e.what === 'eticket_downloaded')).toHaveLength(6);
    expect(timeline.length).toBeGreaterThan(8);

    const walked: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `page[items]=3${cursor ? `&page[cursor]=${encodeURIComponent(cursor)}` : ''}`;
      const page = await call(BUYER, 'GET', `/v9/orders/${ORDER}/delivery_evidence?${q}`);
      expect(page.status).toBe(200);
      expect(page.body.timeline.length).toBeLessThanOrEqual(3);
      walked.push(...page.body.timeline);
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor !== null && pages < 50);
    expect(walked).toEqual(timeline);
    expect(pages).toBe(Math.ceil(timeline.length / 3));
  });

  it('answers 100 entries by default and refuses a page size or cursor it did not give, naming the field', async () => {
    const first = await call(BUYER, 'GET', `/v9/orders/${ORDER}/delivery_evidence`);
    expect(first.status).toBe(200);
    expect(first.body.next_cursor).toBeNull(); // under 100 entries: one page

    const big = await call(BUYER, 'GET', `/v9/orders/${ORDER}/delivery_evidence?page[items]=501`);
    expect(big.status).toBe(400);
    expect(big.body.errors[0].field).toBe('page[items]');
    const bad = await call(BUYER, 'GET', `/v9/orders/${ORDER}/delivery_evidence?page[cursor]=yesterday`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ field: 'page[cursor]' });
    expect(bad.body.errors[0].message).toMatch(/not a cursor this list gave/);
  });
});

describe('a page that ends inside an instant', () => {
  it('goes on with the rest of that instant, none twice, none left out', () => {
    const at = (ms: number) => new Date(Date.UTC(2026, 11, 7) + ms).toISOString();
    const timeline = [0, 5, 5, 5, 5, 9].map((ms, i) => ({ at: at(ms), what: `e${i}`, by: 'system' }) as EvidenceEntry);
    const seen: EvidenceEntry[] = [];
    let cursor: string | undefined;
    for (let n = 0; n < 10; n++) {
      const { entries, next } = evidencePage(timeline, { items: 2, cursor });
      seen.push(...entries);
      if (next === null) break;
      cursor = next;
    }
    expect(seen.map((e) => e.what)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4', 'e5']);
  });
});
