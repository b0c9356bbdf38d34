import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../project-root.ts';

const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  description: string;
};

/** Name, version and one-line description, as package.json says them. */
export const SERVICE = { name: pkg.name, version: pkg.version, description: pkg.description };
