// tsc rewrites `./x.ts` imports to `./x.js` in the JavaScript it emits
// (rewriteRelativeImportExtensions) but leaves them as written in declaration files, where a
// consumer's compiler refuses them (TS5097). This rewrites relative specifiers in emitted .d.ts.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const RELATIVE_TS = /((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]*?)\.ts(['"])/g;

/** Rewrites every .d.ts under dir; returns how many files changed. */
export function rewriteDeclarationExtensions(dir) {
  let changed = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8');
    const fixed = text.replace(RELATIVE_TS, '$1$2.js$3');
    if (fixed !== text) {
      writeFileSync(file, fixed);
      changed++;
    }
  }
  return changed;
}
