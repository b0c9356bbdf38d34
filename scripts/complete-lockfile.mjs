#!/usr/bin/env node
// Some registries (this project's mirror among them) serve only the platform binaries of the
// machine that asks, so `npm install` leaves other platforms' optional packages out of
// package-lock.json and `npm ci` then refuses the lock. This adds each missing optional package
// with its version and its os/cpu/libc read from its name: npm skips them on other platforms
// without fetching. Run after `npm install` changes the lock: node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const OSES = ['android', 'darwin', 'freebsd', 'linux', 'openbsd', 'openharmony', 'win32', 'sunos', 'aix', 'netbsd'];
const CPUS = {
  arm64: 'arm64',
  x64: 'x64',
  ia32: 'ia32',
  arm: 'arm',
  loong64: 'loong64',
  ppc64: 'ppc64',
  riscv64: 'riscv64',
  s390x: 's390x',
  mips64el: 'mips64el',
  'arm-gnueabihf': 'arm',
  'arm-musleabihf': 'arm',
  'arm-eabi': 'arm',
};

function platformOf(name) {
  const base = name.split('/').pop();
  const os = OSES.find((o) => base.includes(`-${o}-`) || base.startsWith(`${o}-`));
  if (!os) return undefined;
  const rest = base.slice(base.indexOf(os) + os.length + 1);
  const cpuKey = Object.keys(CPUS)
    .sort((a, b) => b.length - a.length)
    .find((c) => rest === c || rest.startsWith(`${c}-`) || rest.startsWith(c));
  if (!cpuKey) return undefined;
  const libc = /musl/.test(rest) ? 'musl' : /gnu/.test(rest) && os === 'linux' ? 'glibc' : undefined;
  return { os: [os], cpu: [CPUS[cpuKey]], ...(libc ? { libc: [libc] } : {}) };
}

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
let added = 0;
for (const [where, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const parentDir = where === '' ? '' : `${where}/`;
    if (lock.packages[`${parentDir}node_modules/${dep}`] || lock.packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    lock.packages[`node_modules/${dep}`] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, ...platform };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} optional platform package(s)`);
