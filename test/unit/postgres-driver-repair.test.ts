import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  assertDriverPatched,
  DRIVER_BUILDS,
  DRIVER_PATCH,
  driverPatchProblems,
  installedDriverDir,
  PATCH_MARKERS,
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
    expect(files).toEqual(DRIVER_BUILDS.flatMap((b) => Object.keys(PATCH_MARKERS).map((f) => `${b}/${f}`)).sort());
    for (const markers of Object.values(PATCH_MARKERS)) {
      for (const marker of markers) expect(patch.split(`+    ${marker}\n`).length - 1).toBe(DRIVER_BUILDS.length);
    }
    expect(DRIVER_PATCH).toBe(`patches/postgres+${PATCHED_VERSION}.patch`);
    expect(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).dependencies.postgres).toBe(PATCHED_VERSION);
  });

  it('is checked: the driver as npm ships it is refused, naming the patch and the fix', () => {
    const dir = unpatchedCopy('pristine');
    expect(driverPatchProblems(dir)).toHaveLength(DRIVER_BUILDS.length * Object.keys(PATCH_MARKERS).length);
    expect(() => assertDriverPatched(dir)).toThrow(
      expect.objectContaining({
        name: 'DriverUnpatched',
        message: expect.stringMatching(
          /patches\/postgres\+3\.4\.9\.patch.*src\/connection\.js lacks.*`npm ci` \(not --ignore-scripts\).*`npx patch-package`/s,
        ),
      }),
    );
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
