import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SecretBox } from '../src/auth/secret-box.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import { seedDatabase } from '../src/domain/seed.ts';
import { fixtureSchema } from '../src/domain/fixture.ts';
import { startService } from '../src/service.ts';

/** A database kept from an earlier run (--reuse): its secrets were sealed under that run's key, so they are sealed anew. */
export async function resealCredentials(url: string, fixture: unknown, key: string): Promise<void> {
  const database = await openDatabase({ databaseUrl: url, maxConnections: 1 });
  try {
    await database.sql!`delete from credentials`;
    await seedDatabase(database, fixtureSchema.parse(fixture), SecretBox.fromKey(key));
  } finally {
    await database.close();
  }
}

/** The real API process (no workers) on a free port over a bench database. */
export async function startBenchApi(url: string, key: string): Promise<{ url: string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-bench-'));
  const service = await startService(
    loadConfig({
      DATABASE_URL: url,
      REDIS_URL: process.env.REDIS_URL,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      FULFIL_SECRET_KEY: key,
      QUEUE_PREFIX: `bench${process.pid}`,
      // High enough never to refuse, while its Redis round trip stays in every measured request.
      RATE_LIMIT_PER_MINUTE: String(1_000_000_000),
    }),
    { api: true, worker: false },
  );
  return {
    url: service.url!,
    async stop() {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
