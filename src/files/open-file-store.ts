import type { Config } from '../config.ts';
import type { SqlRunner } from '../db/database.ts';
import { PostgresFileStore, type FileStore } from './file-store.ts';

/** The store FILE_STORE_URL names: unset, Postgres; `s3://bucket/prefix`, an S3-compatible bucket. */
export async function openFileStore(
  config: Pick<Config, 'FILE_STORE_URL' | 'FILE_STORE_S3_ENDPOINT'>,
  database: SqlRunner,
): Promise<FileStore> {
  if (!config.FILE_STORE_URL) return new PostgresFileStore(database);
  // Loaded only when configured: the AWS SDK is large, and most deployments keep files in Postgres.
  const { S3FileStore } = await import('./s3-store.ts');
  return S3FileStore.fromUrl(config.FILE_STORE_URL, database, { endpoint: config.FILE_STORE_S3_ENDPOINT });
}
