import { spawnSync, type SpawnSyncReturns } from 'node:child_process';

/**
 * Another local account, for attacks that come from a second user of the machine (a shared
 * host, a compromised unrelated service). Tests run as root in CI and on the development
 * machines: the account is created when missing (.ci/run creates it too) and the attacker's
 * steps run through `runuser`. Without root there is no honest way to act as someone else, so
 * the test fails saying so rather than pass without trying.
 */
export const INTRUDER = 'fulfil-intruder';

export function ensureIntruder(): string {
  if (spawnSync('id', ['-u', INTRUDER]).status === 0) return INTRUDER;
  if (process.getuid?.() !== 0) throw new Error(`these tests act as a second local user: run them as root, or create the user ${INTRUDER}`);
  const made = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', INTRUDER], { encoding: 'utf8' });
  // Another test file may have created it meanwhile (exit 9: the name is taken).
  if (made.status !== 0 && made.status !== 9) throw new Error(`useradd ${INTRUDER} failed: ${made.stderr}`);
  return INTRUDER;
}

/** Runs a program as the second user (from /, with a minimal environment). */
export function asIntruder(command: string, args: string[], timeoutMs = 20_000): SpawnSyncReturns<string> {
  return spawnSync('runuser', ['-u', ensureIntruder(), '--', command, ...args], {
    encoding: 'utf8',
    cwd: '/',
    env: { PATH: process.env.PATH, HOME: '/' },
    timeout: timeoutMs,
  });
}

/** Runs a script with node as the second user; its stdout, trimmed. */
export function nodeAsIntruder(script: string): string {
  const r = asIntruder(process.execPath, ['--input-type=module', '-e', script]);
  if (r.error) throw r.error;
  return `${r.stdout}${r.stderr}`.trim();
}
