import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@hey-api/openapi-ts';

/** Where the SDK @hey-api/openapi-ts generates from the document lives: written by `npm run openapi`. */
export const GENERATED_SDK = fileURLToPath(new URL('../generated/hey-api/', import.meta.url));

/**
 * The files @hey-api/openapi-ts (fetch client, types, SDK of one function per operationId)
 * generates from a document, by path relative to its output folder.
 */
export async function sdkOf(doc: unknown): Promise<Map<string, string>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fulfil-sdk-'));
  const input = path.join(dir, 'openapi.json');
  writeFileSync(input, JSON.stringify(doc));
  try {
    await createClient({
      input,
      output: path.join(dir, 'out'),
      plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
      logs: { level: 'silent' },
    });
    return filesUnder(path.join(dir, 'out'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function filesUnder(root: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files.set(path.relative(root, full), readFileSync(full, 'utf8'));
  }
  return new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
}

/** Writes the generated SDK where the tests import it from, replacing what was there. */
export function writeSdk(files: Map<string, string>): void {
  rmSync(GENERATED_SDK, { recursive: true, force: true });
  for (const [rel, text] of files) {
    const target = path.join(GENERATED_SDK, rel);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
}
