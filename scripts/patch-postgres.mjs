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
const ABANDON_MARK = '/* fulfil: abandon a connection */';
const RESERVED_MARK = '/* fulfil: a reserved connection that closed */';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const driver = path.join(root, 'node_modules', 'postgres');
const DIRS = ['src', 'cjs/src', 'cf/src'];

const CLOSED_SOCKET_EDITS = [
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

// A client-side deadline (src/db/client.ts) must be able to give up on a connection whose
// statement never completes: Postgres may wait on the client mid-statement, where neither
// statement_timeout nor idle_in_transaction_session_timeout fires. `query.abandon()` destroys the
// socket the query was sent on; the driver's close path then fails what was in flight on it and
// opens a new connection on the next query.
const ABANDON_EDITS = [
  {
    what: 'abandon on a query',
    from: '    if (stream)\n      return queryError(q, Errors.generic(',
    to: `    ${ABANDON_MARK}\n    q.abandon = abandon\n\n    if (stream)\n      return queryError(q, Errors.generic(`,
  },
  {
    what: 'abandon the socket',
    from: '  function terminate() {\n',
    to: '  function abandon() {\n    socket && socket.destroy()\n  }\n\n  function terminate() {\n',
  },
];

// A reserved connection that Postgres closed goes back to the pool through the close path (it is
// reopened on demand). Its reservation must then end there: a later query on the reservation
// fails with CONNECTION_CLOSED instead of parking the connection as busy for good, and release()
// does not hand the pool a connection it already has.
const RESERVED_EDITS = [
  {
    what: 'reserved connection closed under its holder',
    from:
      '    move(c, reserved)\n' +
      '    c.reserved = () => queue.length\n' +
      '      ? c.execute(queue.shift())\n' +
      '      : move(c, reserved)\n' +
      '    c.reserved.release = true\n' +
      '\n' +
      '    const sql = Sql(handler)\n' +
      '    sql.release = () => {\n' +
      '      c.reserved = null\n' +
      '      onopen(c)\n' +
      '    }\n' +
      '\n' +
      '    return sql\n' +
      '\n' +
      '    function handler(q) {\n' +
      '      c.queue === full\n',
    to:
      `    ${RESERVED_MARK}\n` +
      '    move(c, reserved)\n' +
      '    const mine = c.reserved = () => queue.length\n' +
      '      ? c.execute(queue.shift())\n' +
      '      : move(c, reserved)\n' +
      '    c.reserved.release = true\n' +
      '\n' +
      '    const sql = Sql(handler)\n' +
      '    sql.release = () => {\n' +
      '      if (c.reserved !== mine)\n' +
      '        return\n' +
      '      c.reserved = null\n' +
      '      onopen(c)\n' +
      '    }\n' +
      '\n' +
      '    return sql\n' +
      '\n' +
      '    function handler(q) {\n' +
      '      if (c.reserved !== mine)\n' +
      "        return q.reject(Errors.connection('CONNECTION_CLOSED', options))\n" +
      '      c.queue === full\n',
  },
];

const PATCHES = [
  { file: 'connection.js', mark: MARK, edits: CLOSED_SOCKET_EDITS },
  { file: 'connection.js', mark: ABANDON_MARK, edits: ABANDON_EDITS },
  { file: 'index.js', mark: RESERVED_MARK, edits: RESERVED_EDITS },
];

export { PATCHES };

export function repair(source, patch = PATCHES[0]) {
  if (source.includes(patch.mark)) return { source, state: 'already repaired' };
  let out = source;
  for (const edit of patch.edits) {
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
  for (const dir of DIRS) {
    for (const patch of PATCHES) {
      const file = `${dir}/${patch.file}`;
      const full = path.join(driver, file);
      if (!existsSync(full)) continue;
      const before = readFileSync(full, 'utf8');
      const { source, state } = repair(before, patch);
      if (state.startsWith('not recognised')) {
        failed = true;
        console.error(`patch-postgres: postgres ${version} ${file}: ${state}; check whether this version still needs the repair`);
        continue;
      }
      if (check) {
        if (state !== 'already repaired') failed = true;
        console.log(
          `patch-postgres: postgres ${version} ${file} (${patch.mark}): ${state === 'already repaired' ? 'repaired' : 'NOT repaired'}`,
        );
      } else if (source !== before) {
        writeFileSync(full, source);
        console.log(`patch-postgres: postgres ${version} ${file}: repaired (${patch.mark})`);
      }
    }
  }
  return failed ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();
