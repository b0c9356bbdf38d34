import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/project-root.ts';
import { apiClient } from '../support/api.ts';
import { recordedText } from '../support/easypost-stub.ts';
import { baseFixture, BUYER, SELLER, BUYER_ADDRESS } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { until } from '../support/webhook-receiver.ts';

// Simulating a carrier from the docs alone: the document gives the carrier webhook's body (the
// EasyPost event it reads) with an example, which EasyPost's own recorded events fit; the example,
// signed as the document says, moves a mailed shipment; and the shell commands of
// docs/OPERATIONS.md, "Simulating the carrier", run as written, deliver it.

const SECRET = 'whsec-carrier-simulation-test';
const ORDER = 1800;
const UPS = '1Z5R89390357567127';
const ADDRESS = BUYER_ADDRESS;

describe('simulating the carrier from the docs', () => {
  let t: TestService;
  let call: ReturnType<typeof apiClient>;
  let doc: any;
  beforeAll(async () => {
    t = await startTestService({ env: { EASYPOST_WEBHOOK_SECRET: SECRET } });
    await t.seed(baseFixture([ORDER]));
    call = apiClient(t.url);
    doc = await (await fetch(`${t.url}/openapi.json`)).json();
  });
  afterAll(async () => {
    await t?.stop();
  });

  const operation = () => doc.paths['/carriers/easypost/events'].post;
  const shipmentState = async (id: number) => (await call(BUYER, 'GET', `/v9/shipments/${id}`)).body.state as string;

  it("documents the request body: EasyPost's event shape, which its recorded events and the example fit", () => {
    const body = operation().requestBody.content['application/json'];
    expect(body.schema.required).toEqual(expect.arrayContaining(['id', 'description', 'result']));
    expect(body.schema.properties.result.properties.tracking_details.type).toBe('array');
    const validate = new Ajv2020({ strict: false }).compile(body.schema);
    const example = body.examples.inTransit.value;
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    for (const file of ['tracker-updated-in-transit.json', 'tracker-updated-delivered.json']) {
      expect(validate(JSON.parse(recordedText(file))), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(validate({ id: 'evt_1', description: 'tracker.updated', result: {} })).toBe(false);
    expect(operation().parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'x-hmac-signature' })]));
  });

  it('the signed example moves the shipment, and the OPERATIONS.md commands deliver it', async () => {
    const accepted = await call(SELLER, 'POST', `/v9/orders/${ORDER}/accept`, { reviewer_id: 100 });
    const mailed = await call(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, {
      type: 'UPS',
      ship_to_address_attributes: ADDRESS,
    });
    const id = mailed.body.id as number;
    expect((await call(SELLER, 'PUT', `/v9/shipments/${id}/tracking`, { tracking_number: UPS })).status).toBe(200);

    const raw = JSON.stringify(operation().requestBody.content['application/json'].examples.inTransit.value);
    const signature = `hmac-sha256-hex=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;
    const post = (headers: Record<string, string>) =>
      fetch(`${t.url}/carriers/easypost/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: raw,
      });
    expect((await post({ 'x-hmac-signature': `hmac-sha256-hex=${'0'.repeat(64)}` })).status).toBe(401);
    const taken = await post({ 'x-hmac-signature': signature });
    expect(taken.status).toBe(200);
    expect(await taken.json()).toMatchObject({ taken: true, shipment_id: id });
    await until('the example moved the shipment', async () => (await shipmentState(id)) === 'in_transit');

    // The docs' commands, as written but for the service's address and secret.
    const guide = await readFile(path.join(PROJECT_ROOT, 'docs/OPERATIONS.md'), 'utf8');
    const section = guide.slice(guide.indexOf('### Simulating the carrier'));
    const script = /```bash\n([\s\S]*?)```/.exec(section)![1]!;
    expect(script).toContain('BASE=http://127.0.0.1:3000');
    const dir = await mkdtemp(path.join(tmpdir(), 'carrier-simulation-'));
    try {
      const { stdout } = await promisify(execFile)(
        'bash',
        ['-euo', 'pipefail', '-c', script.replace('BASE=http://127.0.0.1:3000', `BASE=${t.url}`).replace('=whsec-change-me', `=${SECRET}`)],
        { cwd: dir },
      );
      expect(JSON.parse(stdout)).toMatchObject({ taken: true, shipment_id: id, reason: null });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    await until('the scripted event delivered the shipment', async () => (await shipmentState(id)) === 'delivered');
    expect((await call(BUYER, 'GET', `/v9/orders/${ORDER}`)).body.state).toBe('completed');
    const scans = (await call(BUYER, 'GET', `/v9/shipments/${id}/tracking_events`)).body.tracking_events;
    expect(scans.map((s: { status: string; source: string }) => [s.status, s.source])).toEqual([
      ['in_transit', 'carrier'],
      ['delivered', 'carrier'],
    ]);
  });
});
