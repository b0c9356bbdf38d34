#!/usr/bin/env node
// Repairs a defect of the postgres.js driver (3.4.x, up to the newest release 3.4.9) that kills
// the process when Postgres restarts: see docs/RELIABILITY.md, "Postgres restarts".
//
// When a connection closes inside a transaction, the driver's transaction code sends its own
// ROLLBACK (or ROLLBACK TO SAVEPOINT) on that connection. The connection has no socket any more,
// yet the write is buffered and flushed from a setImmediate, which then calls null.write() and
// throws outside any promise: an uncaught TypeError. The same teardown also cancels the flush
// timer without clearing it, so a connection that closed with a write pending never flushes a
// small write again until a timeout.
//
// The repair: a query on a connection without a socket fails at once with CONNECTION_CLOSED (a
// rejection its caller handles); a flush that finds no socket drops its bytes and fails what
// was waiting; teardown clears the pending write. Runs on `npm ci`/`npm install` (postinstall);
// running it again changes nothing. `--check` only reports, exiting 1 when unrepaired.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MARK = '/* fulfil: closed-socket guard */';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const driver = path.join(root, 'node_modules', 'postgres');
const FILES = ['src/connection.js', 'cjs/src/connection.js', 'cf/src/connection.js'];

const EDITS = [
  {
    what: 'execute on a closed connection',
    from: "      return queryError(q, Errors.connection('CONNECTION_DESTROYED', options))\n",
    to:
      "      return queryError(q, Errors.connection('CONNECTION_DESTROYED', options))\n\n" +
      `    ${MARK}\n` +
      '    if (!socket)\n' +
      "      return queryError(q, Errors.connection('CONNECTION_CLOSED', options))\n",
  },
  {
    what: 'flush without a socket',
    from: '  function nextWrite(fn) {\n',
    to:
      '  function nextWrite(fn) {\n' +
      '    if (!socket) {\n' +
      '      nextWriteTimer !== null && clearImmediate(nextWriteTimer)\n' +
      '      chunk = nextWriteTimer = null\n' +
      "      error(Errors.connection('CONNECTION_CLOSED', options))\n" +
      '      return false\n' +
      '    }\n',
  },
  {
    what: 'teardown leaves a pending write armed',
    from: '    clearImmediate(nextWriteTimer)\n',
    to: '    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n',
    all: true,
  },
];

export function repair(source) {
  if (source.includes(MARK)) return { source, state: 'already repaired' };
  let out = source;
  for (const edit of EDITS) {
    if (!out.includes(edit.from)) return { source, state: `not recognised (${edit.what})` };
    out = edit.all ? out.split(edit.from).join(edit.to) : out.replace(edit.from, edit.to);
  }
  return { source: out, state: 'repaired' };
}

function main() {
  const check = process.argv.includes('--check');
  if (!existsSync(driver)) return 0; // not installed (yet): nothing to do
  const { version } = JSON.parse(readFileSync(path.join(driver, 'package.json'), 'utf8'));
  let failed = false;
  for (const file of FILES) {
    const full = path.join(driver, file);
    if (!existsSync(full)) continue;
    const before = readFileSync(full, 'utf8');
    const { source, state } = repair(before);
    if (state.startsWith('not recognised')) {
      failed = true;
      console.error(`patch-postgres: postgres ${version} ${file}: ${state}; check whether this version still needs the repair`);
      continue;
    }
    if (check) {
      if (state !== 'already repaired') failed = true;
      console.log(`patch-postgres: postgres ${version} ${file}: ${state === 'already repaired' ? 'repaired' : 'NOT repaired'}`);
    } else if (source !== before) {
      writeFileSync(full, source);
      console.log(`patch-postgres: postgres ${version} ${file}: repaired`);
    }
  }
  return failed ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();
