import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TEST_REDIS_URL } from './env.ts';
import { dropPrefix } from './redis.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/fulfil.mjs');

/** Runs `fulfil start` from the built bin/ as a real child process; resolves with its URL once it listens. */
export function startBuiltService(
  env: NodeJS.ProcessEnv,
  args: string[] = [],
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, [BIN, 'start', ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 60 s:\n${out}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`exited ${code} before listening:\n${out}`)));
    child.stdout!.on('data', () => {
      const line = out.split('\n').find((l) => l.includes('"fulfil started"'));
      if (line) {
        clearTimeout(timer);
        resolve({ child, url: JSON.parse(line).url, output: () => out });
      }
    });
  });
}

export function stopBuiltService(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

/**
 * The quick start as a user has it: `fulfil start --seed` from the built bin/ on the embedded
 * database (no DATABASE_URL) in a fresh directory, on the test Redis under its own queue prefix.
 * `seed` is a fixture file or a fixture object (written beside the data). `env` is what a CLI next
 * to it needs to find the service; `dir` is free for the test's own files. stop() ends the
 * service, drops the prefix and removes the directory.
 */
export async function startEmbeddedService(opts: { prefix: string; seed: string | object; env?: NodeJS.ProcessEnv }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'fulfil-embedded-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    DATA_DIR: path.join(dir, 'data'),
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: opts.prefix,
    ...opts.env,
  };
  let seed = opts.seed;
  if (typeof seed !== 'string') {
    writeFileSync(path.join(dir, 'fixture.json'), JSON.stringify(seed));
    seed = path.join(dir, 'fixture.json');
  }
  const stop = async () => {
    if (child && child.exitCode === null) await stopBuiltService(child);
    await dropPrefix(opts.prefix);
    rmSync(dir, { recursive: true, force: true });
  };
  let child: ChildProcess | undefined;
  try {
    const started = await startBuiltService(env, ['--seed', seed]);
    child = started.child;
    return { child, url: started.url, env, dir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
