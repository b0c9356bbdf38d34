#!/usr/bin/env node
// Runs the built service: dist/ is made by `npm run build`, which `npm ci` runs (prepare) and
// `npm start` repeats (prestart) so edited sources are never run stale. tsx is for development only.
import { existsSync } from 'node:fs';

const built = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(built)) {
  console.error('fulfil: the service is not built (no dist/): run `npm run build` (npm ci does it)');
  process.exit(1);
}
const { main } = await import(built.href);
process.exitCode = await main(process.argv.slice(2));
