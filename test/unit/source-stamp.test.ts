import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without declarations
import { sourceStamp } from '../../scripts/source-stamp.mjs';

const stampOf = sourceStamp as (root: string, opts: { dirs: string[]; files?: string[]; extra?: string }) => string;

describe('the build skips itself when nothing changed', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'fulfil-stamp-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const opts = { dirs: ['src'], files: ['tsconfig.json'], extra: '6.0.3' };

  it('the stamp changes with any source, configuration or compiler change, and only then', () => {
    mkdirSync(path.join(root, 'src/deep'), { recursive: true });
    writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(root, 'src/deep/b.ts'), 'export const b = 2;\n');
    writeFileSync(path.join(root, 'tsconfig.json'), '{}');
    const first = stampOf(root, opts);
    expect(stampOf(root, opts)).toBe(first);

    const seen = new Set([first]);
    const changed = (what: string) => {
      const now = stampOf(root, opts);
      expect(seen.has(now), what).toBe(false);
      seen.add(now);
    };
    writeFileSync(path.join(root, 'src/deep/b.ts'), 'export const b = 3;\n');
    utimesSync(path.join(root, 'src/deep/b.ts'), new Date(), new Date(Date.now() + 5_000));
    changed('a source edited');
    writeFileSync(path.join(root, 'src/c.ts'), '');
    changed('a source added');
    rmSync(path.join(root, 'src/a.ts'));
    changed('a source removed');
    writeFileSync(path.join(root, 'tsconfig.json'), '{"compilerOptions":{}}');
    changed('the configuration edited');
    expect(stampOf(root, { ...opts, extra: '6.0.4' })).not.toBe(stampOf(root, opts));
  });

  it('a second build of an unchanged tree compiles nothing', () => {
    const build = () =>
      execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: path.resolve(import.meta.dirname, '../..'), encoding: 'utf8' });
    build();
    expect(build()).toBe('build: dist/ is up to date (no source changed since the last build)\n');
  }, 120_000);
});
