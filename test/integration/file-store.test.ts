import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresFileStore, type FileStore } from '../../src/files/file-store.ts';
import { inspectPdf } from '../../src/files/inspect-file.ts';
import { pruneFiles } from '../../src/files/prune-files.ts';
import { S3FileStore } from '../../src/files/s3-store.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { makePdf } from '../support/test-files.ts';

// Both stores behave the same: bytes by their sha256, stored once, read back whole; housekeeping
// removes what no set references after the grace period and never a referenced file. The S3
// store runs against a real S3-compatible server (s3rver, from npm) started here.

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe.each(['postgres', 's3'] as const)('file store: %s', (kind) => {
  let db: TestDatabase;
  let store: FileStore;
  let s3: S3rver | undefined;
  let dir: string | undefined;
  let setSeq = 0;
  beforeAll(async () => {
    db = await createTestDatabase();
    if (kind === 'postgres') {
      store = new PostgresFileStore(db.database);
    } else {
      dir = mkdtempSync(path.join(tmpdir(), 'fulfil-s3-'));
      s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: 'tickets' }] });
      const { port } = await s3.run();
      process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
      process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
      store = S3FileStore.fromUrl('s3://tickets/fulfil/files', db.database, { endpoint: `http://127.0.0.1:${port}` });
    }
  });
  afterAll(async () => {
    await db?.drop();
    await s3?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const sql = () => db.database.sql!;
  async function put(label: string): Promise<{ bytes: Buffer; sha256: string }> {
    const bytes = await makePdf(1, label);
    await store.put(sha(bytes), bytes, await inspectPdf(bytes));
    return { bytes, sha256: sha(bytes) };
  }
  /** A set (of order 1's shipment 1) referencing the files. */
  async function reference(sha256s: string[], replacedDaysAgo?: number): Promise<number> {
    const id = ++setSeq;
    const replaced = replacedDaysAgo === undefined ? null : new Date(Date.now() - replacedDaysAgo * 86_400_000).toISOString();
    await sql()`insert into shipment_file_sets (id, order_id, shipment_id, kind, command_id, brokerage_id, replaced_at)
      values (${id}, 1, ${id}, 'etickets', ${`cmd-${kind}-${id}`}, 1, ${replaced})`;
    for (const [position, s] of sha256s.entries()) {
      await sql()`insert into shipment_files (set_id, position, sha256) values (${id}, ${position}, ${s})`;
    }
    return id;
  }
  const age = (s: string, hours: number) =>
    sql()`update stored_files set stored_at = now() - make_interval(hours => ${hours}) where sha256 = ${s}`;

  it('stores bytes once by their hash and reads them back whole', async () => {
    const bytes = await makePdf(2, 'once');
    const facts = await inspectPdf(bytes);
    expect(await store.put(sha(bytes), bytes, facts)).toEqual({ created: true });
    expect(await store.put(sha(bytes), bytes, facts)).toEqual({ created: false });
    expect((await store.get(sha(bytes)))!.equals(bytes)).toBe(true);
    const rows = await sql()`select bytes, media_type, pages, content is not null as inline from stored_files where sha256 = ${sha(bytes)}`;
    expect(rows).toEqual([{ bytes: bytes.length, media_type: 'application/pdf', pages: 2, inline: kind === 'postgres' }]);
    expect(await store.get('0'.repeat(64))).toBeUndefined();
  });

  it('housekeeping: unreferenced files go after the grace period, referenced ones never; replaced sets after the retention', async () => {
    const orphan = await put('orphan');
    const fresh = await put('fresh');
    const held = await put('held');
    const old = await put('replaced');
    await reference([held.sha256]);
    await reference([old.sha256], 100);
    for (const f of [orphan, held, old]) await age(f.sha256, 48);

    const pruned = await pruneFiles(db.database, store, { graceHours: 24, retentionDays: 90 });
    expect(pruned).toEqual({ sets: 1, files: 2 });
    expect(await store.get(orphan.sha256)).toBeUndefined();
    expect(await store.get(old.sha256)).toBeUndefined();
    expect((await store.get(fresh.sha256))!.equals(fresh.bytes)).toBe(true);
    expect((await store.get(held.sha256))!.equals(held.bytes)).toBe(true);
    // A referenced file cannot be deleted at all: the reference's key refuses.
    await expect(sql()`delete from stored_files where sha256 = ${held.sha256}`).rejects.toThrow(/foreign key/);

    // Stored again, a removed file is whole again.
    expect(await store.put(orphan.sha256, orphan.bytes, await inspectPdf(orphan.bytes))).toEqual({ created: true });
    expect((await store.get(orphan.sha256))!.equals(orphan.bytes)).toBe(true);
  });
});
