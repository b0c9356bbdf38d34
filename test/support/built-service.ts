import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

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
