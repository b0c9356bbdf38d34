import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs script without types
import { repair } from '../../scripts/patch-postgres.mjs';

describe('the postgres.js closed-socket repair', () => {
  it('is installed in every build of the driver that the service may load', () => {
    const out = execFileSync(process.execPath, ['scripts/patch-postgres.mjs', '--check'], { encoding: 'utf8' });
    expect(out).toMatch(/src\/connection.js \(.*closed-socket guard.*\): repaired/);
    expect(out).toMatch(/src\/connection.js \(.*abandon.*\): repaired/);
    expect(out).toMatch(/src\/index.js \(.*reserved.*\): repaired/);
    expect(out).not.toMatch(/NOT repaired/);
  });

  it('is idempotent, and refuses a source it does not recognise rather than half-edit it', () => {
    const file = createRequire(import.meta.url)
      .resolve('postgres')
      .replace(/cjs\/src\/index.js$/, 'src/connection.js');
    const installed = readFileSync(file, 'utf8');
    expect(repair(installed)).toEqual({ source: installed, state: 'already repaired' });
    expect(repair('function unrelated() {}').state).toMatch(/^not recognised/);
  });
});
