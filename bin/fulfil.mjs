#!/usr/bin/env node
// The service ships as TypeScript and runs through tsx's loader, so there is no build step
// between a clone and `npm start`; `npm test` type-checks the same sources.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
