// What `npm run build` compiles, summed up: every file under the compiled directories (path, size,
// modification time), the build's configuration and the compiler's version. Equal stamps mean
// the last build's dist/ is still what the sources would give, so the build can be skipped (a
// no-op incremental tsc still takes seconds, on every `npm start`).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A hash of the files under `dirs` and of `files` (relative to `root`), plus `extra`. */
export function sourceStamp(root, { dirs, files = [], extra = '' }) {
  const lines = [];
  const add = (rel) => {
    const s = statSync(path.join(root, rel), { throwIfNoEntry: false });
    lines.push(s ? `${rel}\t${s.size}\t${s.mtimeMs}` : `${rel}\tmissing`);
  };
  for (const dir of dirs) {
    if (!existsSync(path.join(root, dir))) continue;
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })) {
      if (entry.isFile()) add(path.relative(root, path.join(entry.parentPath, entry.name)));
    }
  }
  files.forEach(add);
  return createHash('sha256').update(lines.sort().join('\n')).update(`\n${extra}`).digest('hex');
}

/** Whether `stampFile` holds `stamp` (the build it describes is current). */
export function stampMatches(stampFile, stamp) {
  return existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === stamp;
}

export function writeStamp(stampFile, stamp) {
  writeFileSync(stampFile, `${stamp}\n`);
}
