// Writes docs/MACHINES.md and docs/machines/*.svg from machines/ (npm run docs:machines).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { machinesDocFiles } from '../src/ops/machines-doc.ts';

for (const [file, text] of Object.entries(machinesDocFiles())) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  console.log(`wrote ${file}`);
}
