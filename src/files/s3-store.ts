import { DeleteObjectsCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { SqlRunner, SqlTx } from '../db/database.ts';
import { registerFile, type FileStore } from './file-store.ts';
import type { FileFacts } from './file-refused.ts';

/**
 * The bytes in an S3-compatible bucket under `<prefix>/<sha256>`; Postgres keeps the registry
 * (`stored_files`, content null). Storing writes the row first, then the object: a file row
 * housekeeping deletes is deleted with its object inside one transaction, and an upload of the
 * same bytes waits on that row until the transaction ends, then writes both again. An object is
 * written whole or not at all (a PUT), so a reader never sees half a file.
 */
export class S3FileStore implements FileStore {
  readonly kind = 's3' as const;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly prefix: string,
    private readonly db: SqlRunner,
  ) {}

  static fromUrl(url: string, db: SqlRunner, opts: { endpoint?: string | undefined } = {}): S3FileStore {
    const parsed = new URL(url);
    const prefix = parsed.pathname.replace(/^\/+|\/+$/g, '');
    const client = new S3Client({
      ...(opts.endpoint ? { endpoint: opts.endpoint, forcePathStyle: true } : {}),
      region: process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
      maxAttempts: 3,
    });
    return new S3FileStore(client, parsed.hostname, prefix, db);
  }

  private key(sha256: string): string {
    return this.prefix ? `${this.prefix}/${sha256}` : sha256;
  }

  async put(sha256: string, bytes: Buffer, facts: FileFacts): Promise<{ created: boolean }> {
    const registered = await registerFile(this.db, sha256, facts, null);
    // Written every time, not only when the row is new: a row without its object (a PUT that
    // failed after the row was written) is mended by the next upload of the same bytes.
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.key(sha256),
        Body: bytes,
        ContentType: facts.mediaType,
        ContentLength: bytes.length,
      }),
    );
    return registered;
  }

  async get(sha256: string): Promise<Buffer | undefined> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(sha256) }));
      if (!out.Body) return undefined;
      return Buffer.from(await out.Body.transformToByteArray());
    } catch (err) {
      if (err instanceof NoSuchKey) return undefined;
      throw err;
    }
  }

  async removeBytes(_tx: SqlTx, sha256s: readonly string[]): Promise<void> {
    for (let i = 0; i < sha256s.length; i += 1000) {
      const keys = sha256s.slice(i, i + 1000).map((sha) => ({ Key: this.key(sha) }));
      const out = await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }));
      if (out.Errors?.length)
        throw new Error(`S3 refused to delete ${out.Errors.length} file(s): ${out.Errors[0]?.Code} ${out.Errors[0]?.Message}`);
    }
  }
}
