import { randomBytes } from 'node:crypto';
import { deadlinePolicyOf } from '../../src/domain/deadline-policy.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import { loadOpsConfig } from '../../src/ops/ops-config.ts';
import { seedDatabase } from '../../src/domain/seed.ts';
import { fixtureSchema } from '../../src/domain/fixture.ts';
import { startService, type Roles, type Service } from '../../src/service.ts';
import type { Logger } from '../../src/logger.ts';
import type { Resolve } from '../../src/webhooks/send.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { TEST_REDIS_URL } from './env.ts';
import { dropPrefix, testPrefix } from './redis.ts';

export interface TestService {
  service: Service;
  config: Config;
  url: string;
  db: TestDatabase;
  prefix: string;
  seed(fixture: unknown): Promise<void>;
  stop(): Promise<void>;
}

export const TEST_SECRET_KEY = randomBytes(32).toString('hex');

/**
 * The real service (Fastify, BullMQ workers, Postgres, Redis) on a free port, with this file's
 * own database and BullMQ prefix. Nothing is mocked.
 */
export async function startTestService(
  opts: {
    roles?: Roles;
    env?: Record<string, string>;
    db?: TestDatabase;
    prefix?: string;
    hooks?: { onStatement?: (text: string) => void; webhookResolve?: Resolve };
    /** Where the service logs (default: nowhere, or stdout at TEST_LOG_LEVEL). */
    log?: Logger;
  } = {},
): Promise<TestService> {
  const db = opts.db ?? (await createTestDatabase());
  const prefix = opts.prefix ?? testPrefix();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-test-'));
  const config = loadConfig({
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: dataDir,
    FULFIL_SECRET_KEY: TEST_SECRET_KEY,
    NODE_ENV: 'test',
    ...opts.env,
  });
  // A worker-only service serves its metrics on a free port, so test files never collide on one.
  const ops = loadOpsConfig({ METRICS_PORT: '0', ...opts.env });
  const service = await startService(config, opts.roles ?? { api: true, worker: true }, opts.log, { ops, ...opts.hooks });
  return {
    service,
    config,
    url: service.url ?? '',
    db,
    prefix,
    async seed(fixture) {
      await seedDatabase(db.database, fixtureSchema.parse(fixture), service.secretBox, deadlinePolicyOf(config));
    },
    async stop() {
      await service.stop();
      // A service that was handed its database or prefix leaves them to whoever made them.
      if (!opts.prefix) await dropPrefix(prefix);
      if (!opts.db) await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
