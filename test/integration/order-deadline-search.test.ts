import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersList, ordersShow } from '../../src/cli/commands/orders.ts';
import { searchOrders } from '../../src/ops/order-search.ts';
import { renderMetrics } from '../../src/telemetry/metrics-scrape.ts';
import { baseFixture } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { until } from '../support/webhook-receiver.ts';

// Operators find orders by their deadline: past it (--overdue, ?overdue=yes) or due within a
// while (--due-within 24h); the order view and `fulfil orders show` print the deadline and both
// timers; /metrics counts the open orders past their deadline.

const PAST = 760;
const SOON = 761;
const LATER = 762;
const FINISHED_PAST = 763;
const hour = 3_600_000;

describe('orders by deadline', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ env: { TIMER_SWEEP_EVERY_MS: '300' } });
    const fixture = baseFixture([PAST, SOON, LATER, FINISHED_PAST]);
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    for (const o of fixture.orders as Array<Record<string, unknown>>) {
      if (o.id === PAST || o.id === FINISHED_PAST) o.deliver_by = at(-2 * hour);
      if (o.id === SOON) o.deliver_by = at(5 * hour);
      if (o.id === LATER) o.deliver_by = at(50 * hour);
    }
    await t.seed(fixture);
    await t.db.database.sql!`update orders set state = 'rejected' where id = ${FINISHED_PAST}`;
  });
  afterAll(async () => {
    await t?.stop();
  });

  const ids = async (params: Record<string, string>) => (await searchOrders(t.db.database.db, params)).orders.map((o) => o.id).sort();

  it('the search: overdue open orders, and open orders due within a duration', async () => {
    expect(await ids({ overdue: 'yes' })).toEqual([PAST]);
    expect(await ids({ due_within: '24h' })).toEqual([SOON]);
    expect(await ids({ due_within: '3d' })).toEqual([SOON, LATER]);
    expect(await ids({ due_within: '90m' })).toEqual([]);
    await expect(ids({ due_within: 'tomorrow' })).rejects.toThrow('due_within: expected a duration such as 90m, 24h or 7d');
    await expect(ids({ overdue: 'no' })).rejects.toThrow('overdue: one of yes');
  });

  it('the ops pages: the filters, the deadline column, the order view with its timers', async () => {
    const list = await (await fetch(`${t.url}/ops/orders?overdue=yes`)).text();
    expect(list).toContain(`data-order="${PAST}"`);
    expect(list).not.toContain(`data-order="${SOON}"`);
    expect(list).toContain('<th>deliver by</th>');
    // The worker's first sweep arms the past deadline's timers at start: both fire at once.
    await until('the past deadline fired', async () => {
      const [row] = await t.db.database.sql!`select overdue_fired_at from orders where id = ${PAST}`;
      return row!.overdue_fired_at !== null;
    });
    const view = await (await fetch(`${t.url}/ops/orders/${PAST}`)).text();
    expect(view).toMatch(/id="order-deadline">– · \d{4}-/);
    expect(view).toContain('id="order-timers"');
    expect(view).toMatch(/id="order-reminder">due \d{4}-[^<]*, (fired \d{4}-[^<]*|not fired yet) \(due before the order existed: /);
    expect(view).toMatch(/id="order-timers">due \d{4}-[^<]*, fired \d{4}-/);
    expect(view).toContain('<b>overdue</b>');
  });

  it('fulfil orders list --overdue | --due-within, and orders show', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { DATABASE_URL: t.db.url, LOG_LEVEL: 'silent', FULFIL_SECRET_KEY: t.config.FULFIL_SECRET_KEY! });
    try {
      const run = async (module: typeof ordersList, values: Record<string, string | boolean>, positionals: string[] = []) => {
        const lines: string[] = [];
        const code = await module.run({ values, positionals }, { out: (l) => lines.push(l), err: (l) => lines.push(l) });
        return { code, lines };
      };
      const overdue = await run(ordersList, { overdue: true });
      expect(overdue.code).toBe(0);
      expect(overdue.lines.filter((l) => /^\d+ +(pending|accepted)/.test(l)).map((l) => Number(l.split(' ')[0]))).toEqual([PAST]);
      expect(overdue.lines[0]).toContain('DELIVER BY');
      const soon = await run(ordersList, { 'due-within': '24h' });
      expect(soon.lines.filter((l) => /^\d+ +(pending|accepted)/.test(l)).map((l) => Number(l.split(' ')[0]))).toEqual([SOON]);
      await expect(run(ordersList, { 'due-within': 'soon' })).rejects.toThrow('--due-within: expected a duration');
      const show = await run(ordersShow, {}, [String(PAST)]);
      expect(show.lines.find((l) => l.includes('deadline:'))).toMatch(
        /deadline: in hand on -, deliver by \S+; reminder \S+ (not fired|fired \S+); overdue \S+ (not fired|fired \S+)/,
      );
    } finally {
      process.env = saved;
    }
  });

  it('/metrics: fulfil_orders_overdue counts open orders past their deadline', async () => {
    const text = await renderMetrics({ queues: [], db: t.db.database.db });
    expect(text).toMatch(/^fulfil_orders_overdue\{mode="live"\} 1$/m);
    expect(text).toMatch(/^fulfil_orders_overdue\{mode="test"\} 0$/m);
  });
});
