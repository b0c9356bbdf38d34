import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../src/redis/private-server.ts';

/**
 * The service as separate OS processes, as a deployment runs it: `fulfil start --role api` and
 * `--role worker`, each with its own Postgres pool, Redis connections and event loop.
 */
export interface Fleet {
  apiUrls: string[];
  apiPids: number[];
  workerPids: number[];
  /** /metrics of each worker process (METRICS_PORT); an API process serves its own on its URL. */
  workerMetricsUrls: string[];
  stop(): Promise<void>;
}

export async function startFleet(opts: { apis: number; workers: number; env: Record<string, string> }): Promise<Fleet> {
  const children: ChildProcess[] = [];
  const apiUrls: string[] = [];
  const apiPids: number[] = [];
  const workerPids: number[] = [];
  const workerMetricsUrls: string[] = [];
  const launch = (role: 'api' | 'worker', env: Record<string, string>) => {
    const child = spawn(process.execPath, ['bin/fulfil.mjs', 'start', '--role', role], {
      env: { PATH: process.env.PATH, ...opts.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
    return child;
  };
  const stop = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }),
    );
  };
  try {
    for (let i = 0; i < opts.workers; i++) {
      // Each its own port: on the default one, the second worker and later would pick a free port and only log it.
      const port = await freePort();
      workerPids.push(launch('worker', { METRICS_PORT: String(port) }).pid!);
      workerMetricsUrls.push(`http://127.0.0.1:${port}/metrics`);
    }
    for (let i = 0; i < opts.apis; i++) {
      const port = await freePort();
      apiPids.push(launch('api', { PORT: String(port), HOST: '127.0.0.1' }).pid!);
      apiUrls.push(`http://127.0.0.1:${port}`);
    }
    for (const url of apiUrls) await waitReady(url, children);
  } catch (err) {
    await stop();
    throw err;
  }
  return { apiUrls, apiPids, workerPids, workerMetricsUrls, stop };
}

async function waitReady(url: string, children: ChildProcess[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const dead = children.find((c) => c.exitCode !== null);
    if (dead) throw new Error(`a service process exited with code ${dead.exitCode} during start-up`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
