import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/redis/private-server.ts';
import { apiClient } from '../support/api.ts';
import { baseFixture, ORDERS, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

const RULES = path.resolve(import.meta.dirname, '../../prometheus/fulfil-alerts.yml');
const TOKEN = 'prometheus-alert-test-token';

interface PromAlert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}

/**
 * A real Prometheus (Debian package `prometheus`; .ci/run installs it) scrapes a running API with
 * the repository's rules file, every second. The workers run in a second service; stopping it
 * while commands arrive must make the no-worker alert go pending, and the waiting-commands alert
 * after its 30 s threshold.
 */
describe('alert rules against a real Prometheus', () => {
  let api: TestService;
  let worker: TestService | undefined;
  let prometheus: ChildProcess;
  let promUrl: string;
  let dir: string;
  let promLog = '';

  const alerts = async (): Promise<PromAlert[]> => {
    const res = await fetch(`${promUrl}/api/v1/alerts`);
    return ((await res.json()) as { data: { alerts: PromAlert[] } }).data.alerts;
  };
  const until = async <T>(what: string, fn: () => Promise<T | undefined>, ms: number): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn().catch(() => undefined);
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${promLog.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  };

  beforeAll(async () => {
    api = await startTestService({ roles: { api: true, worker: false }, env: { OPS_TOKEN: TOKEN, COMMAND_WAIT_MS: '300' } });
    await api.seed(baseFixture());
    worker = await startTestService({ roles: { api: false, worker: true }, db: api.db, prefix: api.prefix });
    dir = mkdtempSync(path.join(tmpdir(), 'fulfil-prom-'));
    const target = new URL(api.url).host;
    writeFileSync(
      path.join(dir, 'prometheus.yml'),
      `global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [${JSON.stringify(RULES)}]
scrape_configs:
  - job_name: fulfil
    authorization: { credentials: ${JSON.stringify(TOKEN)} }
    static_configs: [{ targets: [${JSON.stringify(target)}] }]
`,
    );
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    prometheus.stderr!.on('data', (d) => (promLog += d));
    await until(
      'the scrape target to be up',
      async () => {
        const res = await fetch(`${promUrl}/api/v1/targets`);
        const body = (await res.json()) as { data: { activeTargets: Array<{ health: string }> } };
        return body.data.activeTargets.some((t) => t.health === 'up') || undefined;
      },
      30_000,
    );
  }, 90_000);
  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((r) => prometheus.once('exit', r));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await worker?.stop();
    await api?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('goes pending when the workers stop while commands arrive', async () => {
    // Healthy first: the rule is evaluated on real samples and finds a worker.
    await until(
      'a sample of fulfil_queue_workers',
      async () => {
        const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent('fulfil_queue_workers{queue="commands"}')}`);
        const body = (await res.json()) as { data: { result: Array<{ value: [number, string] }> } };
        return body.data.result[0] && Number(body.data.result[0].value[1]) >= 1 ? true : undefined;
      },
      30_000,
    );
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await alerts()).filter((a) => a.labels.alertname === 'FulfilNoWorkerConsuming')).toEqual([]);

    await worker!.stop();
    worker = undefined;
    const call = apiClient(api.url);
    for (const id of [ORDERS.tbd, ORDERS.flash, ORDERS.localPickup]) {
      expect((await call(SELLER, 'POST', `/v9/orders/${id}/accept`, { reviewer_id: 100 })).status).toBe(202);
    }
    const noWorker = await until(
      'FulfilNoWorkerConsuming',
      async () => (await alerts()).find((a) => a.labels.alertname === 'FulfilNoWorkerConsuming' && a.labels.queue === 'commands'),
      30_000,
    );
    expect(noWorker).toMatchObject({ state: 'pending', labels: { severity: 'page', queue: 'commands' } });
    const waiting = await until(
      'FulfilCommandsWaitingTooLong',
      async () => (await alerts()).find((a) => a.labels.alertname === 'FulfilCommandsWaitingTooLong'),
      60_000,
    );
    expect(waiting.state).toBe('pending');
  }, 120_000);
});
