#!/usr/bin/env node
// `npm run build`: compiles the workspace packages the service imports by name (packages/contract,
// then packages/client, each to its own dist/), then the service (src/, workers/, machines/) to
// dist/ with declarations and source maps; `npm ci` runs it through `prepare`, `npm start` before
// starting. A part whose sources, configuration and compiler did not change since its last build
// (its dist/.source-stamp) is skipped; `--force` compiles everything anyway.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { rewriteDeclarationExtensions } from './dts-extensions.mjs';
import { sourceStamp, stampMatches, writeStamp } from './source-stamp.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error('build: TypeScript is not installed (it is a devDependency): run `npm ci` without --omit=dev');
  process.exit(1);
}
const compiler = JSON.parse(readFileSync(new URL('../package.json', `file://${tsc}`), 'utf8')).version;
const force = process.argv.includes('--force');
const run = (args) => execFileSync(process.execPath, args, { stdio: 'inherit' });

/** Builds one part unless its stamp says dist/ is current; a rebuilt part forces the parts after it. */
function part(name, { dirs, files, built, stampFile, build }, upstreamChanged) {
  const stamp = sourceStamp(root, { dirs, files, extra: compiler });
  if (!force && !upstreamChanged && existsSync(`${root}${built}`) && stampMatches(`${root}${stampFile}`, stamp)) return false;
  try {
    build();
  } catch {
    process.exit(1); // tsc has printed the errors
  }
  writeStamp(`${root}${stampFile}`, stamp);
  console.log(`build: ${name} compiled`);
  return true;
}

let changed = false;
for (const pkg of ['contract', 'client']) {
  const dir = `packages/${pkg}`;
  changed =
    part(
      `@fulfil/${pkg}`,
      {
        dirs: [`${dir}/src`],
        files: [`${dir}/tsconfig.json`, `${dir}/tsconfig.cjs.json`, `${dir}/package.json`],
        built: `${dir}/dist/esm/index.js`,
        stampFile: `${dir}/dist/.source-stamp`,
        build: () => run([`${root}scripts/build-package.mjs`, `${root}${dir}`]),
      },
      changed,
    ) || changed;
}
changed = part(
  'the service',
  {
    dirs: ['src', 'workers', 'machines'],
    files: ['tsconfig.json', 'tsconfig.build.json', 'package.json'],
    built: 'dist/src/cli/main.js',
    stampFile: 'dist/.source-stamp',
    build: () => {
      run([tsc, '-p', `${root}tsconfig.build.json`]);
      rewriteDeclarationExtensions(`${root}dist`);
    },
  },
  changed,
);
if (!changed) console.log('build: dist/ is up to date (no source changed since the last build)');
