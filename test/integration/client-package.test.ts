import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseFixture } from '../support/fixtures.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The producer package as an upstream system gets it: `npm pack` of packages/client and of the
// packages/contract it depends on, installed from the tarballs into a scratch project of its own
// (bullmq, ioredis and zod come from the registry, or npm's cache), then used from plain ESM,
// plain CommonJS and TypeScript (ESM and CommonJS, type-checked with a standard tsconfig and run)
// against the real service. Packed as `npm test` built them (--ignore-scripts): a prepack rebuild
// would empty the dist/ that another test file's built service is importing at that moment.

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../..');
const PACKAGE_DIR = path.join(REPO, 'packages/client');
const CONTRACT_DIR = path.join(REPO, 'packages/contract');
const TSC = path.join(REPO, 'node_modules/typescript/bin/tsc');
const NPM_QUIET = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
const ORDER = { mjs: 760, cjs: 761, ts: 762, cts: 763 } as const;

/** One consumer: accepts its order awaited, then shows the names of the errors a caller catches. */
function consumer(kind: keyof typeof ORDER): string {
  return `
    const client = new FulfilmentClient({ redisUrl: process.env.REDIS_URL, prefix: process.env.QUEUE_PREFIX, defaultTimeoutMs: 20000 });
    try {
      const outcome = await client.acceptOrder({ order_id: ${ORDER[kind]}, reviewer_id: 100 }, { brokerageId: 1, await: true, commandId: 'pkg-${kind}' });
      let invalid;
      try {
        await client.acceptOrder({ order_id: -1, reviewer_id: 100 }, { brokerageId: 1 });
      } catch (err) {
        invalid = err;
      }
      console.log(JSON.stringify({
        outcome,
        invalid: { name: invalid.name, isInvalidParams: invalid instanceof InvalidParams, code: invalid.code },
        names: [new Unavailable().name, new CommandTimeout('c', 1).name, new CommandFailed('c', 'r').name],
        schemas: Object.keys(PAYLOAD_SCHEMAS),
      }));
    } finally {
      await client.close();
    }`;
}

const ESM_IMPORT = `import { CommandFailed, CommandTimeout, FulfilmentClient, InvalidParams, PAYLOAD_SCHEMAS, Unavailable } from '@fulfil/client';`;
const CJS_REQUIRE = `const { CommandFailed, CommandTimeout, FulfilmentClient, InvalidParams, PAYLOAD_SCHEMAS, Unavailable } = require('@fulfil/client');`;

describe('@fulfil/client, packed and installed', () => {
  let t: TestService;
  let scratch: string;
  let tarball: string;
  let contractTarball: string;

  beforeAll(async () => {
    t = await startTestService();
    const fixture = baseFixture(Object.values(ORDER));
    await t.seed(fixture);

    scratch = mkdtempSync(path.join(tmpdir(), 'fulfil-client-consumer-'));
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch, '--loglevel=error'], {
      cwd: PACKAGE_DIR,
    });
    tarball = path.join(scratch, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename);
    const contract = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch, '--loglevel=error'], {
      cwd: CONTRACT_DIR,
    });
    contractTarball = path.join(scratch, (JSON.parse(contract.stdout) as Array<{ filename: string }>)[0]!.filename);
    writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'upstream', private: true, type: 'module' }));
    // TypeScript 5 beside the repository's 6: the published declarations must compile on both.
    await run('npm', ['install', ...NPM_QUIET, contractTarball, tarball, '@types/node@^20.19.0', 'typescript@~5.9.0'], { cwd: scratch });
  }, 300_000);

  afterAll(async () => {
    await t?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /**
   * tsc's errors in the consumer's files and in the published @fulfil declarations. Another
   * package's own declarations are that package's to fix (ioredis 6 imports the untyped
   * redis-errors, an error with skipLibCheck false whatever the consumer imports).
   */
  async function ourTypeErrors(tsc: string, ...args: string[]): Promise<string[]> {
    const out = await run(process.execPath, [tsc, '-p', 'tsconfig.json', ...args], { cwd: scratch }).then(
      (r) => r.stdout,
      (err: { stdout: string; stderr: string }) => `${err.stdout}${err.stderr}`,
    );
    const errors = out.split('\n').filter((l) => /error TS\d+/.test(l));
    return errors.filter((l) => !l.startsWith('node_modules/') || l.startsWith('node_modules/@fulfil/'));
  }

  async function node(file: string) {
    const env = { ...process.env, REDIS_URL: t.config.REDIS_URL, QUEUE_PREFIX: t.prefix };
    const { stdout } = await run(process.execPath, [file], { cwd: scratch, env, timeout: 60_000 });
    return JSON.parse(stdout.trim().split('\n').at(-1)!);
  }

  async function expectAccepted(kind: keyof typeof ORDER, printed: any) {
    expect(printed.outcome).toEqual({
      commandId: `pkg-${kind}`,
      status: 200,
      body: {
        id: ORDER[kind],
        oid: `1001-${ORDER[kind]}`,
        state: 'accepted',
        shipments: [{ id: expect.any(Number), url: expect.stringMatching(/^\/shipments\/\d+$/), type: 'TBD' }],
        livemode: true,
      },
    });
    expect(printed.invalid).toEqual({ name: 'InvalidParams', isInvalidParams: true, code: 'invalid_params' });
    expect(printed.names).toEqual(['Unavailable', 'CommandTimeout', 'CommandFailed']);
    expect(printed.schemas).toContain('order.accept');
    const [order] = await t.db.database.sql!`select state from orders where id = ${ORDER[kind]}`;
    expect(order!.state).toBe('accepted');
  }

  it('ships only the built packages: no tests, no service code, no .ts sources outside src/', async () => {
    for (const file of [tarball, contractTarball]) {
      const { stdout } = await run('tar', ['-tzf', file]);
      const files = stdout
        .trim()
        .split('\n')
        .map((f) => f.replace(/^package\//, ''));
      expect(files).toContain('dist/esm/index.js');
      expect(files).toContain('dist/esm/index.d.ts');
      expect(files).toContain('dist/cjs/index.js');
      expect(files).toContain('dist/cjs/index.d.ts');
      expect(files).toContain('dist/cjs/package.json');
      expect(files.filter((f) => !/^(dist|src)\/|^package\.json$|^README\.md$|^CHANGELOG\.md$/.test(f))).toEqual([]);
    }
    const installed = JSON.parse(readFileSync(path.join(scratch, 'node_modules/@fulfil/client/package.json'), 'utf8'));
    expect(Object.keys(installed.dependencies).sort()).toEqual(['@fulfil/contract', 'bullmq', 'ioredis', 'zod']);
    const contract = JSON.parse(readFileSync(path.join(scratch, 'node_modules/@fulfil/contract/package.json'), 'utf8'));
    expect(Object.keys(contract.dependencies)).toEqual(['zod']);
  });

  it('implements, in both builds, every method its declarations promise', async () => {
    const installed = path.join(scratch, 'node_modules/@fulfil/client/dist');
    for (const build of ['esm', 'cjs']) {
      const declared = [
        ...readFileSync(path.join(installed, build, 'client/fulfilment-client.d.ts'), 'utf8').matchAll(/^ {4}(\w+)(?:<[^>]*>)?\(/gm),
      ].map((m) => m[1]!);
      expect(declared).toEqual(expect.arrayContaining(['openDeliveryIssue', 'reissueShipment', 'chooseMailedDelivery', 'attachAirbill']));
      // Each build run by node as a consumer runs it, listing what its class really has.
      const code =
        build === 'esm'
          ? `import('@fulfil/client').then((m) => console.log(JSON.stringify(Object.getOwnPropertyNames(m.FulfilmentClient.prototype))))`
          : `console.log(JSON.stringify(Object.getOwnPropertyNames(require('@fulfil/client').FulfilmentClient.prototype)))`;
      const { stdout } = await run(process.execPath, ['-e', code], { cwd: scratch });
      const implemented = JSON.parse(stdout) as string[];
      expect([build, declared.filter((m) => !implemented.includes(m))]).toEqual([build, []]);
    }
  });

  it('works from a plain ES module (import)', async () => {
    writeFileSync(path.join(scratch, 'use.mjs'), `${ESM_IMPORT}\n${consumer('mjs')}\n`);
    await expectAccepted('mjs', await node('use.mjs'));
  }, 90_000);

  it('works from plain CommonJS (require)', async () => {
    writeFileSync(path.join(scratch, 'use.cjs'), `${CJS_REQUIRE}\n(async () => {${consumer('cjs')}\n})();\n`);
    await expectAccepted('cjs', await node('use.cjs'));
  }, 90_000);

  it('type-checks (strict, skipLibCheck false, TypeScript 5 and 6) and runs from TypeScript, as ESM and as CommonJS', async () => {
    const typed = (kind: 'ts' | 'cts') =>
      consumer(kind)
        .replace(
          'const outcome = await',
          // The declared result type of an awaited call: a wrong property here fails tsc.
          'const outcome: { commandId: string; status: number; body: unknown } = await',
        )
        .replace('let invalid;', 'let invalid: any;');
    writeFileSync(path.join(scratch, 'use.ts'), `${ESM_IMPORT}\n${typed('ts')}\n`);
    writeFileSync(
      path.join(scratch, 'use-cjs.cts'),
      `${ESM_IMPORT}\nasync function main(): Promise<void> {${typed('cts')}\n}\nvoid main();\n`,
    );
    writeFileSync(
      path.join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          types: ['node'],
          outDir: 'out',
          // Every declaration checked, the packages' own included (issue 54: one failed on TypeScript 5.9).
          skipLibCheck: false,
        },
        include: ['use.ts', 'use-cjs.cts'],
      }),
    );
    expect(await ourTypeErrors(TSC)).toEqual([]);
    expect(JSON.parse(readFileSync(path.join(scratch, 'node_modules/typescript/package.json'), 'utf8')).version).toMatch(/^5\./);
    expect(await ourTypeErrors(path.join(scratch, 'node_modules/typescript/bin/tsc'), '--noEmit')).toEqual([]);
    // The .cts file compiles to require(): the package's "require" types and code are the ones used.
    expect(readFileSync(path.join(scratch, 'out/use-cjs.cjs'), 'utf8')).toContain(`require("@fulfil/client")`);
    await expectAccepted('ts', await node('out/use.js'));
    await expectAccepted('cts', await node('out/use-cjs.cjs'));
  }, 180_000);
});
