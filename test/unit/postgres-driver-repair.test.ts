import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  assertDriverPatched,
  DRIVER_BUILDS,
  DRIVER_PATCH,
  driverPatchProblems,
  installedDriverDir,
  PATCH_MARKERS,
  PATCHED_FILES,
  PATCHED_VERSION,
} from '../../src/db/driver-patch.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PATCH_FILE = path.join(ROOT, DRIVER_PATCH);
const scratch = mkdtempSync(path.join(tmpdir(), 'fulfil-driver-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the installed driver with the patch taken out again: the package as npm ships it. */
function unpatchedCopy(name: string): string {
  const dir = path.join(scratch, name);
  cpSync(installedDriverDir(), dir, { recursive: true });
  execFileSync('git', ['apply', '--reverse', '-p3', PATCH_FILE], { cwd: dir });
  return dir;
}

type ResultLike = Array<{ id: number }> & {
  count: number | null;
  command: string | null;
  state: unknown;
  columns: unknown;
  statement: unknown;
};

describe('the postgres.js patch', () => {
  it('is installed, in every build the package ships, at the version it is for', () => {
    const dir = installedDriverDir();
    expect(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version).toBe(PATCHED_VERSION);
    for (const build of DRIVER_BUILDS) {
      for (const [file, markers] of Object.entries(PATCH_MARKERS)) {
        const source = readFileSync(path.join(dir, build, file), 'utf8');
        for (const marker of markers) expect(source, `${build}/${file}`).toContain(marker);
      }
    }
    expect(driverPatchProblems(dir)).toEqual([]);
    expect(() => assertDriverPatched()).not.toThrow();
  });

  it('is the patch file, which edits the three builds and nothing else', () => {
    const patch = readFileSync(PATCH_FILE, 'utf8');
    const files = [...patch.matchAll(/^diff --git a\/node_modules\/postgres\/(\S+) /gm)].map((m) => m[1]).sort();
    expect(files).toEqual(DRIVER_BUILDS.flatMap((b) => PATCHED_FILES.map((f) => `${b}/${f}`)).sort());
    for (const file of Object.keys(PATCH_MARKERS)) expect(PATCHED_FILES).toContain(file);
    for (const markers of Object.values(PATCH_MARKERS)) {
      for (const marker of markers) expect(patch.split(`+    ${marker}\n`).length - 1).toBe(DRIVER_BUILDS.length);
    }
    expect(DRIVER_PATCH).toBe(`patches/postgres+${PATCHED_VERSION}.patch`);
    expect(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).dependencies.postgres).toBe(PATCHED_VERSION);
  });

  it("keeps a result's count, command and columns off its own keys, in each build", async () => {
    const dir = installedDriverDir();
    const esm = ((await import(pathToFileURL(path.join(dir, 'src/result.js')).href)) as { default: new () => ResultLike }).default;
    const cjs = createRequire(import.meta.url)(path.join(dir, 'cjs/src/result.js')) as new () => ResultLike;
    for (const Result of [esm, cjs]) {
      const a = new Result();
      const b = new Result();
      a.push({ id: 1 });
      a.count = 1;
      a.command = 'SELECT';
      expect([a.count, a.command, a.state, a.columns, a.statement]).toEqual([1, 'SELECT', null, null, null]);
      expect([b.count, b.command]).toEqual([null, null]);
      expect(Object.keys(a)).toEqual(['0']);
      expect(a).toEqual([{ id: 1 }]);
      expect(JSON.stringify(a)).toBe('[{"id":1}]');
      expect(a.map((r) => r)).toBeInstanceOf(Array);
    }
  });

  it('settles a query through its resolve and reject methods, in each build', async () => {
    type QueryLike = Promise<unknown> & { active: boolean; resolve(x: unknown): void; reject(x: unknown): void };
    type QueryClass = new (strings: string[], args: unknown[], handler: () => void, canceller: null) => QueryLike;
    // Awaiting a query hands it to its handler (the connection); these are settled by hand instead.
    const handler = Object.assign(() => {}, { debug: false });
    const dir = installedDriverDir();
    const esm = ((await import(pathToFileURL(path.join(dir, 'src/query.js')).href)) as { Query: QueryClass }).Query;
    const cjs = (createRequire(import.meta.url)(path.join(dir, 'cjs/src/query.js')) as { Query: QueryClass }).Query;
    for (const Query of [esm, cjs]) {
      const ok = new Query(['select 1'], [], handler, null);
      const failed = new Query(['select 1'], [], handler, null);
      // Methods on the prototype, not two closures made for every query.
      expect(Object.hasOwn(ok, 'resolve') || Object.hasOwn(ok, 'reject')).toBe(false);
      ok.active = true;
      ok.resolve(7);
      expect(ok.active).toBe(false);
      await expect(ok).resolves.toBe(7);
      failed.active = true;
      failed.reject(new Error('refused'));
      expect(failed.active).toBe(false);
      await expect(failed).rejects.toThrow('refused');
    }
  });

  it('is checked: the driver as npm ships it is refused, naming the patch and the fix', () => {
    const dir = unpatchedCopy('pristine');
    expect(driverPatchProblems(dir)).toEqual(['none of its edits is in src/, cjs/src/, cf/src/']);
    expect(() => assertDriverPatched(dir)).toThrow(
      expect.objectContaining({
        name: 'DriverUnpatched',
        message: expect.stringMatching(
          /patches\/postgres\+3\.4\.9\.patch \(none of its edits is in src\/, cjs\/src\/, cf\/src\/\).*`npm ci` \(not --ignore-scripts\).*`npx patch-package`/s,
        ),
      }),
    );
  });

  it("is applied by npm's postinstall quietly: one line for the patch, none that reads as a repair", async () => {
    // npm ci runs exactly this (package.json postinstall); on an installed tree it checks the patch is in.
    const command = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { postinstall: string } }).scripts
      .postinstall;
    const [bin, ...args] = command.split(' ');
    const { stdout, stderr } = await promisify(execFile)(path.join(ROOT, 'node_modules/.bin', bin!), args, { cwd: ROOT });
    const lines = `${stdout}${stderr}`.split('\n').filter(Boolean);
    expect(lines).toContain(`postgres@${PATCHED_VERSION} ✔`);
    expect(lines.length).toBeLessThanOrEqual(3);
    expect(lines.join('\n')).not.toMatch(/repair|warn|error/i);
  });

  it('refuses a half-patched copy, and another release of the driver', () => {
    const half = unpatchedCopy('half');
    cpSync(path.join(installedDriverDir(), 'src'), path.join(half, 'src'), { recursive: true });
    expect(driverPatchProblems(half)).toEqual([
      expect.stringMatching(/^cjs\/src\/connection\.js lacks/),
      expect.stringMatching(/^cjs\/src\/index\.js lacks/),
      expect.stringMatching(/^cf\/src\/connection\.js lacks/),
      expect.stringMatching(/^cf\/src\/index\.js lacks/),
    ]);
    const other = path.join(scratch, 'other-release');
    cpSync(installedDriverDir(), other, { recursive: true });
    const manifest = path.join(other, 'package.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(`"version": "${PATCHED_VERSION}"`, '"version": "3.4.10"'));
    expect(driverPatchProblems(other)).toEqual([`postgres 3.4.10 is installed, the patch is for ${PATCHED_VERSION}`]);
  });
});

/**
 * The built service as an install without the patch would hold it: bin/, dist/, drizzle/ and
 * package.json copied (a symlink would make Node resolve the driver from this checkout again),
 * every package linked from this checkout's node_modules except postgres, which is unpatched.
 */
function unpatchedInstall(): string {
  const dir = path.join(scratch, 'install');
  for (const part of ['bin', 'dist', 'drizzle', 'package.json']) cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true });
  mkdirSync(path.join(dir, 'node_modules'));
  for (const name of readdirSync(path.join(ROOT, 'node_modules'))) {
    if (name !== 'postgres' && !name.startsWith('.'))
      symlinkSync(path.join(ROOT, 'node_modules', name), path.join(dir, 'node_modules', name));
  }
  cpSync(unpatchedCopy('for-install'), path.join(dir, 'node_modules', 'postgres'), { recursive: true });
  return dir;
}

async function fulfil(install: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const base = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: path.join(scratch, 'data') };
  try {
    const { stderr } = await promisify(execFile)(process.execPath, [path.join(install, 'bin/fulfil.mjs'), ...args], {
      env: { ...base, ...env },
      timeout: 60_000,
    });
    return { code: 0, err: stderr };
  } catch (e) {
    const { code, stderr } = e as { code: number; stderr: string };
    return { code, err: stderr };
  }
}

describe('an install whose driver lacks the patch (the built CLI)', () => {
  it('refuses `fulfil start` and `fulfil migrate` before touching anything, and serves again once patched', async () => {
    const install = unpatchedInstall();
    const refusal = new RegExp(
      `the Postgres driver in ${path.join(install, 'node_modules', 'postgres')} lacks this service's patch patches/postgres\\+3\\.4\\.9\\.patch .*\\(not --ignore-scripts\\)`,
    );
    const start = await fulfil(install, ['start']);
    expect(start).toEqual({ code: 1, err: expect.stringMatching(new RegExp(`^fulfil start: ${refusal.source}`)) });
    expect(existsSync(path.join(scratch, 'data'))).toBe(false);
    const migrate = await fulfil(install, ['migrate'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(migrate).toEqual({ code: 1, err: expect.stringMatching(new RegExp(`^fulfil migrate: ${refusal.source}`)) });

    // Patched the way the refusal says (`npx patch-package` applies the same file), the same
    // install gets past the check: migrate now fails only on the unreachable server.
    execFileSync('git', ['apply', '-p3', PATCH_FILE], { cwd: path.join(install, 'node_modules', 'postgres') });
    const patched = await fulfil(install, ['migrate'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(patched).toEqual({ code: 1, err: expect.stringMatching(/^fulfil migrate: Postgres at 127\.0\.0\.1:1 could not be reached/) });
  });
});
