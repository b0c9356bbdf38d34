import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/redis/private-server.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { testPrefix } from '../support/redis.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** README's "A first call" code blocks, in order: the service, the first signed calls, the example receiver. */
function firstCallBlocks(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### A first call'), readme.indexOf('\n## ', readme.indexOf('### A first call')));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** A shell running a block, in a process group of its own (so what it leaves running is stopped with it). */
function shell(script: string, env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn('bash', ['-e', '-c', script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out };
}

async function stopGroup(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid) return;
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', r));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // the group is gone already
  }
  await exited;
}

/**
 * README's quick start as a newcomer follows it: `npx fulfil start --seed fixtures/demo.json`,
 * then, in another shell, the signed calls and the example webhook receiver, each block run by
 * bash as written. Only the ports (8080, 4000) move to free ones, and the data, the Redis prefix
 * and the Redis are the test's own, so it runs beside other tests.
 */
describe("README's quick start", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-readme-'));
  let service: ReturnType<typeof shell> | undefined;
  let client: ReturnType<typeof shell> | undefined;
  afterAll(async () => {
    await stopGroup(client?.child);
    await stopGroup(service?.child);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('starts the service with the demo data, makes the first signed calls and receives a verified webhook', async () => {
    const blocks = firstCallBlocks();
    expect(blocks).toHaveLength(3);
    const [start, calls, receiver] = blocks as [string, string, string];
    const [servicePort, receiverPort] = [await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(servicePort),
      DATA_DIR: dataDir,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: testPrefix(),
      DATABASE_URL: undefined,
      FULFIL_TOKEN: undefined,
      FULFIL_SECRET: undefined,
      WEBHOOK_SECRETS: undefined,
    };

    service = shell(start, env);
    await expect.poll(() => service!.output(), { timeout: 120_000, interval: 250 }).toContain('"fulfil started"');

    // The calls and the receiver in one shell, as a reader runs them one after the other.
    client = shell(`${calls}\n${receiver.replaceAll('4000', String(receiverPort))}`, env);
    await expect.poll(() => client!.output(), { timeout: 120_000, interval: 250 }).toContain('"type":"ping"');
    const out = client.output();
    // The inventory page, then the accepted order (a TBD shipment), each answered 200 (the status
    // on stderr, the body as it came on stdout: not a terminal here).
    expect(out.match(/200 OK\n/g)?.length, out).toBeGreaterThanOrEqual(2);
    expect(out).toContain('"state":"accepted"');
    // The receiver verified the ping's signature with the secret the create call printed, and printed the event.
    const ping = out.split('\n').find((l) => l.includes('"type":"ping"'))!;
    expect(JSON.parse(ping)).toMatchObject({ type: 'ping', data: { endpoint_id: 1 } });
    expect(out).not.toContain('refused:');
  }, 300_000);
});
