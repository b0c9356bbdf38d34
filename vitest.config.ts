import { defineConfig } from 'vitest/config';

// The workspace packages (@fulfil/contract, @fulfil/client) resolve to their TypeScript sources
// under the `fulfil-source` condition, as in tsconfig.json: tests run the code in this checkout,
// never a stale dist/ of a package. `ssr` serves the test files (vitest also hands it to the
// forks as --conditions), `__vitest__` the global setup.
const resolve = { conditions: ['fulfil-source', 'node', 'import', 'default'], externalConditions: ['fulfil-source'] };

export default defineConfig({
  ssr: { resolve },
  environments: { __vitest__: { resolve } },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file has its own database and BullMQ prefix, so files run in parallel safely.
    fileParallelism: true,
  },
});
