#!/usr/bin/env node
// Runs the built service: dist/ is made by `npm run build`, which `npm ci` runs (prepare) and
// `npm start` repeats (prestart) so edited sources are never run stale. tsx is for development only.
import { existsSync } from 'node:fs';

const built = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(built)) {
  console.error('fulfil: the service is not built (no dist/): run `npm run build` (npm ci does it)');
  process.exit(1);
}
// A reader that stops early (`fulfil call … | head -1`) ends the output, not the command with a
// stack trace: stop quietly, as cat and grep do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? 0);
  });
}
const { main } = await import(built.href);
process.exitCode = await main(process.argv.slice(2));
