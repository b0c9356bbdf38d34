#!/usr/bin/env node
// `npm run build`: compiles the service (src/, workers/, machines/ and the producer package's
// sources) to dist/ with declarations and source maps; `npm ci` runs it through `prepare`,
// `npm start` before starting. When no source, configuration or compiler changed since the last
// build (dist/.source-stamp) it does nothing; `--force` compiles anyway.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { rewriteDeclarationExtensions } from '../packages/client/scripts/dts-extensions.mjs';
import { sourceStamp, stampMatches, writeStamp } from './source-stamp.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error('build: TypeScript is not installed (it is a devDependency): run `npm ci` without --omit=dev');
  process.exit(1);
}
const stampFile = `${root}dist/.source-stamp`;
const stamp = sourceStamp(root, {
  dirs: ['src', 'workers', 'machines', 'packages/client/src'],
  files: ['tsconfig.json', 'tsconfig.build.json', 'package.json'],
  extra: JSON.parse(readFileSync(new URL('../package.json', `file://${tsc}`), 'utf8')).version,
});
if (!process.argv.includes('--force') && existsSync(`${root}dist/src/cli/main.js`) && stampMatches(stampFile, stamp)) {
  console.log('build: dist/ is up to date (no source changed since the last build)');
  process.exit(0);
}
try {
  execFileSync(process.execPath, [tsc, '-p', `${root}tsconfig.build.json`], { stdio: 'inherit' });
} catch {
  process.exit(1); // tsc has printed the errors
}
rewriteDeclarationExtensions(`${root}dist`);
writeStamp(stampFile, stamp);
