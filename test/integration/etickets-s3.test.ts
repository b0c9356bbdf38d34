import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { baseFixture, BUYER, SELLER } from '../support/fixtures.ts';
import { signedFetch } from '../support/http.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { b64, makePdf } from '../support/test-files.ts';

// The running service with FILE_STORE_URL=s3://… against a real S3-compatible server (s3rver,
// from npm) started here: upload → complete → the buyer downloads the very bytes, the one-time
// link works once, and the bytes are in the bucket, not in Postgres.

const ORDERS = [900, 901];
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('e-tickets on the S3 store through the service', () => {
  let t: TestService;
  let s3: S3rver;
  let client: S3Client;
  let dir: string;
  const call = () => apiClient(t.url);
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'fulfil-s3-service-'));
    s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: 'tickets' }] });
    const { port } = await s3.run();
    const endpoint = `http://127.0.0.1:${port}`;
    // The AWS SDK's usual variables, as a deployment sets them (README: FILE_STORE_URL).
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    t = await startTestService({ env: { FILE_STORE_URL: 's3://tickets/fulfil/files', FILE_STORE_S3_ENDPOINT: endpoint } });
    await t.seed(baseFixture(ORDERS));
    client = new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1' });
  });
  afterAll(async () => {
    await t?.stop();
    client?.destroy();
    await s3?.close();
    if (dir && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    process.env.AWS_ACCESS_KEY_ID = saved.id;
    process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
  });

  it('upload → complete → byte-identical downloads and a one-time link; the bytes live in the bucket', async () => {
    const accepted = await call()(SELLER, 'POST', `/v9/orders/${ORDERS[0]}/accept`, { reviewer_id: 100 });
    expect(accepted.status).toBe(200);
    const updated = await call()(SELLER, 'PUT', `/v9/shipments/${accepted.body.shipments[0].id}`, { mobile_transfer_type: 'Eticket' });
    expect(updated.status).toBe(200);
    const id = updated.body.id as number;

    const [a, b] = [await makePdf(1, 's3-seat-1'), await makePdf(1, 's3-seat-2')];
    const up = await call()(SELLER, 'POST', `/v9/shipments/${id}/etickets`, {
      etickets: [
        { eticket: b64(a), seat: '1' },
        { eticket: b64(b), seat: '2' },
      ],
    });
    expect(up.status).toBe(200);
    expect(up.body.etickets.map((e: { sha256: string }) => e.sha256)).toEqual([sha(a), sha(b)]);
    const done = await call()(SELLER, 'PUT', `/v9/shipments/${id}/complete`, {});
    expect(done.status).toBe(200);
    expect(done.body.state).toBe('delivered');

    // The buyer downloads each file, byte for byte.
    for (const [i, bytes] of [a, b].entries()) {
      const res = await signedFetch(t.url, BUYER, 'GET', up.body.etickets[i].url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    }

    // The one-time link works once, without credentials.
    const link = await call()(BUYER, 'POST', `/v9/shipments/${id}/etickets/link`, { eticket_id: up.body.etickets[1].id });
    expect(link.status).toBe(201);
    const linkPath = new URL(link.body.url).pathname;
    const once = await fetch(new URL(linkPath, t.url), { method: 'POST' });
    expect(once.status).toBe(200);
    expect(Buffer.from(await once.arrayBuffer()).equals(b)).toBe(true);
    expect((await fetch(new URL(linkPath, t.url), { method: 'POST' })).status).toBe(404);

    // The bytes are objects under the prefix; Postgres keeps only the registry.
    const listed = await client.send(new ListObjectsV2Command({ Bucket: 'tickets', Prefix: 'fulfil/files/' }));
    expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual([`fulfil/files/${sha(a)}`, `fulfil/files/${sha(b)}`].sort());
    const object = await client.send(new GetObjectCommand({ Bucket: 'tickets', Key: `fulfil/files/${sha(a)}` }));
    expect(Buffer.from(await object.Body!.transformToByteArray()).equals(a)).toBe(true);
    const rows = await t.db.database.sql!`select sha256, bytes, content is null as no_content from stored_files order by sha256`;
    expect(rows).toEqual([sha(a), sha(b)].sort().map((s) => ({ sha256: s, bytes: s === sha(a) ? a.length : b.length, no_content: true })));
    expect(readdirSync(dir)).toContain('tickets');
  });
});
