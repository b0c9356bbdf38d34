import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs the built `bin/fulfil.mjs` as a user does (a child process on dist/, which `npm test`
 * builds first), with the given variables set (undefined removes one); resolves with its exit
 * code and everything it printed. A run still going after `timeoutMs` is killed and rejected.
 */
export function runCli(args: string[], env: Record<string, string | undefined> = {}, opts: { timeoutMs?: number } = {}) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete childEnv[k];
    else childEnv[k] = v;
  }
  const child = spawn(process.execPath, [`${ROOT}bin/fulfil.mjs`, ...args], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timeoutMs = opts.timeoutMs ?? 60_000;
  return new Promise<{ code: number; stdout: string; stderr: string; text: string; lines: string[] }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`fulfil ${args.join(' ')} still running after ${timeoutMs} ms:\n${stdout}${stderr}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const text = `${stdout}${stderr}`.replace(/\n$/, '');
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr, text, lines: text.split('\n') });
    });
  });
}

const BIN = path.resolve(import.meta.dirname, '../../bin/fulfil.mjs');
const execFileAsync = promisify(execFile);

/** Runs the built `bin/fulfil.mjs` as a user does, in its own process with exactly this environment. */
export async function runBuiltCli(env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [BIN, ...args], { env, timeout: 60_000 });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, out: err.stdout, err: err.stderr };
  }
}
