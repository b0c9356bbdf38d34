import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { OperatorError } from '../operator-error.ts';

/**
 * The service runs postgres.js with a patch of its own, applied by patch-package when `npm ci`
 * installs (docs/RELIABILITY.md, "Postgres restarts", says why). An install that skipped it
 * (`--ignore-scripts`) would run and pass every ordinary request, then crash on the next Postgres
 * restart or wait on a dead connection for good; so the service refuses to start without it.
 */
export const DRIVER_PATCH = 'patches/postgres+3.4.9.patch';
/** The patch is for this release only; package.json pins it. */
export const PATCHED_VERSION = '3.4.9';

/** The package ships the same code three times: ESM (what the service loads), CommonJS, Workers. */
export const DRIVER_BUILDS = ['src', 'cjs/src', 'cf/src'] as const;

/** Comments the patch adds, file by file: present only where its edits are. */
export const PATCH_MARKERS: Readonly<Record<string, readonly string[]>> = {
  'connection.js': ['/* fulfil: closed-socket guard */', '/* fulfil: abandon a connection */'],
  'index.js': ['/* fulfil: a reserved connection that closed */'],
};

/** The files the patch edits in each build: the repair's (PATCH_MARKERS), and result.js and query.js, whose edits only save CPU. */
export const PATCHED_FILES = ['connection.js', 'index.js', 'query.js', 'result.js'] as const;

export class DriverUnpatched extends OperatorError {
  override name = 'DriverUnpatched';
}

/** The directory of the postgres package this module (and so the service) resolves. */
export function installedDriverDir(): string {
  const entry = createRequire(import.meta.url).resolve('postgres');
  for (let dir = path.dirname(entry); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'postgres') return dir;
  }
  throw new Error(`no package.json of postgres above ${entry}`);
}

/** What is wrong with the driver in driverDir, one line each; empty when it carries the patch. */
export function driverPatchProblems(driverDir: string): string[] {
  const { version } = JSON.parse(readFileSync(path.join(driverDir, 'package.json'), 'utf8')) as { version: string };
  if (version !== PATCHED_VERSION) return [`postgres ${version} is installed, the patch is for ${PATCHED_VERSION}`];
  const problems: string[] = [];
  let lacking = 0;
  for (const build of DRIVER_BUILDS) {
    for (const [file, markers] of Object.entries(PATCH_MARKERS)) {
      const rel = `${build}/${file}`;
      const full = path.join(driverDir, rel);
      if (!existsSync(full)) {
        problems.push(`${rel} is missing`);
        continue;
      }
      const source = readFileSync(full, 'utf8');
      const missing = markers.filter((m) => !source.includes(m));
      if (missing.length) problems.push(`${rel} lacks ${missing.join(', ')}`);
      lacking += missing.length;
    }
  }
  // The usual case (an install that skipped it) in a few words rather than nine.
  const everyMarker = DRIVER_BUILDS.length * Object.values(PATCH_MARKERS).flat().length;
  return lacking === everyMarker ? [`none of its edits is in ${DRIVER_BUILDS.join('/, ')}/`] : problems;
}

const verified = new Set<string>();

/** Throws DriverUnpatched, saying what is wrong and how to fix it, unless the driver carries the patch. */
export function assertDriverPatched(driverDir = installedDriverDir()): void {
  if (verified.has(driverDir)) return;
  const problems = driverPatchProblems(driverDir);
  if (problems.length) {
    throw new DriverUnpatched(
      `the Postgres driver in ${driverDir} lacks this service's patch ${DRIVER_PATCH} (${problems.join('; ')}); ` +
        'without it a Postgres restart can crash the service. Install with `npm ci` (not --ignore-scripts), ' +
        'or apply the patch with `npx patch-package`.',
    );
  }
  verified.add(driverDir);
}
