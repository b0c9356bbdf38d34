import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { runCli } from '../support/cli.ts';
import { baseFixture, BUYER, ORDERS, SELLER } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { makePdf } from '../support/test-files.ts';

// fulfil shipments etickets upload | list | get, the built bin against a running service.

describe('fulfil shipments etickets', () => {
  let t: TestService;
  let dir: string;
  beforeAll(async () => {
    t = await startTestService();
    await t.seed(baseFixture());
    dir = mkdtempSync(path.join(tmpdir(), 'fulfil-cli-etickets-'));
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const as = (cred: typeof SELLER) => ['--token', cred.token, '--secret', cred.secret, '--base', t.url];

  it('uploads one PDF per ticket with seats, lists them, and downloads one byte for byte', async () => {
    const call = apiClient(t.url);
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDERS.tbd}/accept`, { reviewer_id: 100 });
    const updated = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'Eticket' });
    const id = String(updated.body.id);
    const files = [path.join(dir, 'a.pdf'), path.join(dir, 'b.pdf')];
    writeFileSync(files[0]!, await makePdf(1, 'a'));
    writeFileSync(files[1]!, await makePdf(1, 'b'));

    const refused = await runCli(['shipments', 'etickets', 'upload', id, files[0]!, '--seats', '1,2', ...as(SELLER)]);
    expect(refused.code).toBe(2);
    expect(refused.text).toMatch(/--seats: 2 values for 1 file/);

    const up = await runCli(['shipments', 'etickets', 'upload', id, ...files, '--seats', '1,2', ...as(SELLER)]);
    expect(up.code, up.text).toBe(0);
    expect(up.text).toMatch(/^200 OK/);
    expect(up.text).toContain('"seat": "2"');

    const list = await runCli(['shipments', 'etickets', 'list', id, ...as(BUYER)]);
    expect(list.code).toBe(0);
    const eticketId = JSON.parse(list.text.slice(list.text.indexOf('{'))).etickets[1].id as number;

    const out = path.join(dir, 'got.pdf');
    const got = await runCli(['shipments', 'etickets', 'get', id, String(eticketId), '--out', out, ...as(BUYER)]);
    expect(got.code, got.text).toBe(0);
    expect(got.text).toMatch(/^wrote .*got\.pdf \(\d+ bytes, sha256 [0-9a-f]{64}\)/);
    expect(readFileSync(out).equals(readFileSync(files[1]!))).toBe(true);
  });
});
