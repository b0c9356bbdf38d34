import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../chaos/cluster.ts';
import { apiClient, linkDeliveryFlow } from '../support/api.ts';
import { baseFixture, BUYER } from '../support/fixtures.ts';
import { until } from '../support/webhook-receiver.ts';

// The escalation timer on built processes with a private Postgres: the worker SIGKILLed as an
// issue's respond_by comes, and Postgres restarted across it, each still escalate the issue
// exactly once (the order's lock and the issue's state decide, not Redis).

const KILLED = 960;
const RESTARTED = 961;
const WINDOW_MS = 8_000;
const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));

describe('delivery issue escalation on built processes', () => {
  let c: Cluster;
  let call: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    c = await startCluster({
      workers: 1,
      env: {
        TIMER_SWEEP_EVERY_MS: '1000',
        DELIVERY_ISSUE_RESPONSE_WINDOW: `${WINDOW_MS / 1000}s`,
        RELAY_INTERVAL_MS: '50',
        JOB_BACKOFF_MS: '100',
      },
    });
    await c.seed(baseFixture([KILLED, RESTARTED]));
    call = apiClient(c.apiUrl);
    for (const id of [KILLED, RESTARTED]) await linkDeliveryFlow(call, id);
  }, 120_000);
  afterAll(async () => {
    await c?.stop();
  }, 120_000);

  const escalations = async (orderId: number) =>
    (await c.db.sql!`select count(*)::int as n from shipment_events where order_id = ${orderId} and kind = 'delivery_issue_escalated'`)[0]!
      .n as number;

  async function openIssue(orderId: number): Promise<number> {
    const opened = await call(BUYER, 'POST', `/v9/orders/${orderId}/delivery_issues`, { reason: 'transfer_not_accepted' });
    expect(opened.status).toBe(201);
    return Date.parse(opened.body.respond_by);
  }

  it('the worker SIGKILLed as respond_by comes: after a new worker starts, one escalation', async () => {
    const respondBy = await openIssue(KILLED);
    await sleepUntil(respondBy - 30);
    await c.kill(c.workers[0]!);
    await c.addWorker();
    await until('the escalation after the kill', async () => (await escalations(KILLED)) >= 1, 90_000);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await escalations(KILLED)).toBe(1);
    expect(c.crashes()).toEqual([]);
  }, 120_000);

  it('Postgres restarted across respond_by: one escalation', async () => {
    const respondBy = await openIssue(RESTARTED);
    await sleepUntil(respondBy - 1_500);
    c.pg.stop('immediate');
    await sleepUntil(respondBy + 1_000);
    c.pg.start();
    await until('the escalation after the restart', async () => (await escalations(RESTARTED)) >= 1, 60_000);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await escalations(RESTARTED)).toBe(1);
    const [issue] = await c.db.sql!`select state, escalated_by from delivery_issues where order_id = ${RESTARTED}`;
    expect(issue).toEqual({ state: 'escalated', escalated_by: 'system' });
    expect(c.crashes()).toEqual([]);
  }, 120_000);
});
