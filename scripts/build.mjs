#!/usr/bin/env node
// `npm run build`: compiles the service (src/, workers/, machines/ and the producer package's
// sources) to dist/ with declarations and source maps. Incremental, so a build with nothing
// changed takes a moment; `npm ci` runs it through `prepare`, `npm start` before starting.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { rewriteDeclarationExtensions } from '../packages/client/scripts/dts-extensions.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error('build: TypeScript is not installed (it is a devDependency): run `npm ci` without --omit=dev');
  process.exit(1);
}
try {
  execFileSync(process.execPath, [tsc, '-p', `${root}tsconfig.build.json`], { stdio: 'inherit' });
} catch {
  process.exit(1); // tsc has printed the errors
}
rewriteDeclarationExtensions(`${root}dist`);
