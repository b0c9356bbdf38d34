import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory holding the service's package.json and drizzle/ migrations. The code runs from
 * src/ under tsx in development and from dist/src/ once built, at different depths, so it is
 * found by walking up rather than by a fixed relative path.
 */
export const PROJECT_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'drizzle'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`fulfil: no package.json with drizzle/ above ${from}`);
  }
}
