#!/usr/bin/env node
// `npm run lint`: the Node versions package.json's `engines` declares must be ones every package
// in package-lock.json (the tree `npm ci` installs) supports, so the declared range is true and
// `npm ci` prints no EBADENGINE. A package that needs a newer Node is pinned or overridden to a
// release that supports the declared range (package.json `overrides`), or the range is raised.
import { readFileSync } from 'node:fs';
import semver from 'semver';

const root = new URL('..', import.meta.url);
const declared = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).engines?.node;
if (!declared) {
  console.error('check-engines: package.json declares no engines.node');
  process.exit(1);
}
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8'));
const excluded = [];
for (const [where, pkg] of Object.entries(lock.packages ?? {})) {
  const wants = pkg.engines?.node;
  if (!where || typeof wants !== 'string' || pkg.link) continue;
  if (!semver.validRange(wants) || !semver.subset(declared, wants, { includePrerelease: false })) {
    excluded.push(`${where.replace(/^.*node_modules\//, '')}@${pkg.version} wants node ${wants}`);
  }
}
if (excluded.length) {
  console.error(`check-engines: engines.node is "${declared}", but these packages exclude part of it:\n  ${excluded.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-engines: every package of package-lock.json supports node ${declared}`);
