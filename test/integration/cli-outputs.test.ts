import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { runCli } from '../support/cli.ts';
import { completedEticketOrder } from '../support/delivery-issue-flow.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { baseFixture, BUYER, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { b64, makePdf } from '../support/test-files.ts';

// Issue 54, finding 8 (D-168): `fulfil call` writes the body alone to stdout, byte for byte (the
// status to stderr), and a reader that stops early ends it quietly; `fulfil shipments airbill`
// downloads the label; `shipments history` and `issues list` keep their columns apart, and
// `issues list` shows each issue's outcome.

const ORDERS = [1490, 1491];
const UPS = '1Z5R89390357567127';
const BIN = path.resolve(import.meta.dirname, '../../bin/fulfil.mjs');

/** A shell line, run without blocking this process (the service under test answers from it). */
function shell(line: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', line], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    });
  });
}

describe('the CLI as a shell uses it: exact bytes, pipes, tables', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let label: Buffer;
  let shipmentId: number;
  let dir: string;
  const signed = (cred = BUYER) => ({ FULFIL_TOKEN: cred.token, FULFIL_SECRET: cred.secret });

  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture(ORDERS));
    call = apiClient(t.url);
    dir = mkdtempSync(path.join(tmpdir(), 'fulfil-cli-outputs-'));
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS[0]}/accept`, { reviewer_id: 100 });
    const address = {
      name: 'Bo Buyer',
      street_address: '1 Main St',
      locality: 'Chicago',
      region: 'IL',
      postal_code: '60601',
      country_code: 'US',
    };
    const ups = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, {
      type: 'UPS',
      ship_to_address_attributes: address,
    });
    shipmentId = ups.body.id;
    // Large enough (1 MiB) that a reader stopping after one line leaves most of it unread.
    label = await makePdf(1, 'label', 1024 * 1024);
    const uploaded = await call(SELLER, 'POST', `/v9/shipments/${shipmentId}/airbill`, { airbill: b64(label), tracking_number: UPS });
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('`fulfil call GET …/airbill > file`: the PDF alone, byte for byte; the status on stderr', async () => {
    const file = path.join(dir, 'call.pdf');
    const r = await shell(
      `"${process.execPath}" "${BIN}" call GET /v9/shipments/${shipmentId}/airbill --base ${t.url} > "${file}"`,
      signed(),
    );
    expect([r.status, r.stderr]).toEqual([0, '200 OK\n']);
    expect(readFileSync(file).equals(label)).toBe(true);
  });

  it('`fulfil call … | head -1` ends quietly when head stops reading', async () => {
    const r = await shell(
      `"${process.execPath}" "${BIN}" call GET /v9/shipments/${shipmentId}/airbill --base ${t.url} | head -1 > /dev/null; echo "fulfil exited $\{PIPESTATUS[0]}" >&2`,
      signed(),
    );
    expect(r.stderr).not.toMatch(/EPIPE|Error|\n\s+at /);
    expect(r.stderr).toMatch(/fulfil exited 0\n$/);
  });

  it('`fulfil shipments airbill <id> -o file` downloads the label; a stranger is told in a sentence', async () => {
    const file = path.join(dir, 'label.pdf');
    const r = await runCli(['shipments', 'airbill', String(shipmentId), '-o', file, '--base', t.url], signed());
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^wrote ${file} \\(${label.length} bytes, sha256 [0-9a-f]{64}\\)\\n$`));
    expect(readFileSync(file).equals(label)).toBe(true);
    const missing = await runCli(['shipments', 'airbill', '999999', '-o', file, '--base', t.url], signed());
    expect(missing.code).toBe(1);
    expect(missing.text).toBe('fulfil shipments airbill: 404 Not Found: shipment 999999 not found');
  });

  it('`shipments history` and `issues list` keep every column apart; `issues list` shows the outcome', async () => {
    const db = { DATABASE_URL: t.db.url, FULFIL_SECRET_KEY: t.config.FULFIL_SECRET_KEY!, LOG_LEVEL: 'silent' };
    const history = await runCli(['shipments', 'history', String(shipmentId)], db);
    expect(history.code).toBe(0);
    const [header, ...rows] = history.lines;
    expect(header!.split(/ {2,}/)).toEqual(['SEQ', 'AT', 'KIND', 'SHIPMENT', 'FROM', 'TO', 'BY']);
    expect(rows.length).toBeGreaterThan(2);
    for (const row of rows) expect([row, row.split(/ {2,}/).length]).toEqual([row, 7]);

    // An issue closed by an operator: its outcome is in its row.
    await completedEticketOrder(call, ORDERS[1]!);
    const opened = await call(BUYER, 'POST', `/v9/orders/${ORDERS[1]}/delivery_issues`, { reason: 'transfer_not_accepted' });
    expect((await call(BUYER, 'POST', `/v9/delivery_issues/${opened.body.id}/escalate`, {})).status).toBe(200);
    const queues = { ...db, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: t.prefix };
    expect((await runCli(['issues', 'close', String(opened.body.id), '--outcome', 'no_fault'], queues)).code).toBe(0);
    const list = await runCli(['issues', 'list'], db);
    const [top, ...issues] = list.lines;
    const columns = top!.split(/ {2,}/);
    expect(columns).toEqual(['ISSUE', 'ORDER', 'STATE', 'REASON', 'OUTCOME', 'OPENED', 'RESPOND BY', 'ESCALATED']);
    const row = issues.find((l) => l.startsWith(`${opened.body.id} `))!.split(/ {2,}/);
    expect(row).toHaveLength(columns.length);
    expect(row.slice(2, 5)).toEqual(['closed', 'transfer_not_accepted', 'no_fault']);
  });
});
