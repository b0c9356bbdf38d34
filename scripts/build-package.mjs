#!/usr/bin/env node
// Builds one workspace package (packages/contract, packages/client): dist/esm (import) and
// dist/cjs (require), each with declarations and source maps. `node scripts/build-package.mjs DIR`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { rewriteDeclarationExtensions } from './dts-extensions.mjs';

const dir = path.resolve(process.argv[2] ?? '.');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const dist = path.join(dir, 'dist');

rmSync(dist, { recursive: true, force: true });
for (const project of ['tsconfig.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', path.join(dir, project)], { stdio: 'inherit' });
}
// The package is "type": "module"; this marks dist/cjs as CommonJS for Node and TypeScript.
mkdirSync(path.join(dist, 'cjs'), { recursive: true });
writeFileSync(path.join(dist, 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
rewriteDeclarationExtensions(dist);
