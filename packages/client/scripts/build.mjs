// Builds dist/esm (import) and dist/cjs (require), each with declarations and source maps.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { rewriteDeclarationExtensions } from './dts-extensions.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const dist = `${root}dist`;

rmSync(dist, { recursive: true, force: true });
for (const project of ['tsconfig.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', `${root}${project}`], { stdio: 'inherit' });
}
// The package is "type": "module"; this marks dist/cjs as CommonJS for Node and TypeScript.
mkdirSync(`${dist}/cjs`, { recursive: true });
writeFileSync(`${dist}/cjs/package.json`, `${JSON.stringify({ type: 'commonjs' })}\n`);
rewriteDeclarationExtensions(dist);
