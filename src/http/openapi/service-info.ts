import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { name: string; version: string; description: string };

/** Name, version and one-line description, as package.json says them. */
export const SERVICE = { name: pkg.name, version: pkg.version, description: pkg.description };
