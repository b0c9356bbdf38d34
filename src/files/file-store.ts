import type { SqlRunner, SqlTx } from '../db/database.ts';
import type { FileFacts } from './file-refused.ts';

/**
 * Where file bytes live, by the sha256 of their bytes. Postgres's `stored_files` is the registry
 * in every case (the facts, when a file was last stored, whether a set references it); the bytes
 * are in that row (PostgresFileStore) or in a bucket under the hash (S3FileStore). The same bytes
 * are stored once, and storing them again only refreshes `stored_at`.
 */
export interface FileStore {
  readonly kind: 'postgres' | 's3';
  /** Stores the bytes (idempotent); answers whether they were new. */
  put(sha256: string, bytes: Buffer, facts: FileFacts): Promise<{ created: boolean }>;
  /** The bytes, or undefined when no file has this hash. */
  get(sha256: string): Promise<Buffer | undefined>;
  /**
   * Removes the bytes of files whose rows `tx` has just deleted, before it commits: an upload of
   * the same bytes waits on the deleted row, and stores them again after the commit.
   */
  removeBytes(tx: SqlTx, sha256s: readonly string[]): Promise<void>;
}

const TOUCH = `update stored_files set stored_at = now() where sha256 = $1 returning (content is not null) as "hasContent"`;
const INSERT = `insert into stored_files (sha256, bytes, media_type, pages, width, height, content)
  values ($1, $2, $3, $4, $5, $6, $7)
  on conflict (sha256) do update set stored_at = now(), content = coalesce(stored_files.content, excluded.content)`;

/** Inserts the file's row (with its bytes, or without for an external store), or refreshes it. */
export async function registerFile(db: SqlRunner, sha256: string, facts: FileFacts, content: Buffer | null): Promise<{ created: boolean }> {
  // A file stored before is only touched: its bytes do not travel to Postgres again.
  const [touched] = await db.rows<{ hasContent: boolean }>(TOUCH, [sha256]);
  if (touched && (content === null || touched.hasContent)) return { created: false };
  await db.rows(INSERT, [sha256, facts.bytes, facts.mediaType, facts.pages, facts.width, facts.height, content]);
  return { created: !touched };
}

/** The default: the bytes in the file's row (works on the embedded PGlite too). */
export class PostgresFileStore implements FileStore {
  readonly kind = 'postgres' as const;
  constructor(private readonly db: SqlRunner) {}

  put(sha256: string, bytes: Buffer, facts: FileFacts): Promise<{ created: boolean }> {
    return registerFile(this.db, sha256, facts, bytes);
  }

  async get(sha256: string): Promise<Buffer | undefined> {
    const [row] = await this.db.rows<{ content: Uint8Array | null }>(`select content from stored_files where sha256 = $1`, [sha256]);
    if (!row?.content) return undefined;
    return Buffer.isBuffer(row.content) ? row.content : Buffer.from(row.content.buffer, row.content.byteOffset, row.content.byteLength);
  }

  async removeBytes(): Promise<void> {
    // The bytes went with the rows.
  }
}
