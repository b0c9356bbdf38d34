import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FATAL_EXIT_CODE } from '../../src/process-fatal.ts';

/**
 * A real Node process with the service's logger and fatal handlers, in which something throws
 * outside any request or job: a bug exits non-zero after one log line (a supervisor restarts
 * it); an infrastructure error is logged and the process keeps running.
 */
function runWith(thrown: string): Promise<{ code: number | null; lines: string[]; alive: boolean }> {
  const script = `
    const { createLogger } = await import('./src/logger.ts');
    const { installFatalHandlers } = await import('./src/process-fatal.ts');
    installFatalHandlers(createLogger('info'));
    setImmediate(() => { ${thrown} });
    setTimeout(() => { console.log('{"still":"alive"}'); process.exit(0); }, 700);
  `;
  const child = spawn(process.execPath, ['--conditions=fulfil-source', '--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      const lines = out.split('\n').filter(Boolean);
      resolve({ code, lines, alive: lines.some((l) => l.includes('"still":"alive"')) });
    }),
  );
}

describe('process-level fatal handling', () => {
  it('an unexpected error: one fatal log line, then a non-zero exit', async () => {
    const r = await runWith(`throw new TypeError("Cannot read properties of null (reading 'write')")`);
    expect(r.code).toBe(FATAL_EXIT_CODE);
    expect(r.alive).toBe(false);
    expect(r.lines).toHaveLength(1);
    const line = JSON.parse(r.lines[0]!);
    expect(line).toMatchObject({ level: 60, origin: 'uncaughtException', err: { type: 'TypeError' } });
  }, 20_000);

  it('an unhandled rejection of a bug also exits', async () => {
    const r = await runWith(`Promise.reject(new RangeError('bug'))`);
    expect(r.code).toBe(FATAL_EXIT_CODE);
    expect(JSON.parse(r.lines[0]!)).toMatchObject({ level: 60, origin: 'unhandledRejection' });
  }, 20_000);

  it('an infrastructure error (a connection reset) is logged and survived', async () => {
    const r = await runWith(`throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })`);
    expect(r.code).toBe(0);
    expect(r.alive).toBe(true);
    expect(JSON.parse(r.lines[0]!)).toMatchObject({ level: 40, origin: 'uncaughtException' });
  }, 20_000);
});
