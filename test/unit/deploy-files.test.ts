import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.ts';
import { loadOpsConfig } from '../../src/ops/ops-config.ts';
import { FILE_VARIABLES } from '../../src/config-files.ts';

// What the image and compose file promise, checked against the code they run. The linters
// (npm run lint:deploy) check their form; this checks their meaning.

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, any> };
const dockerfile = read('Dockerfile');
const seconds = (duration: string) => Number(/^(\d+)s$/.exec(duration)?.[1] ?? NaN);
/** `${NAME:-default}` as compose resolves it with nothing set in the shell. */
const interpolate = (value: unknown) =>
  String(value).replace(/\$\{\w+(?::?-([^}]*))?\}/g, (_m, fallback: string | undefined) => fallback ?? '');
/** The configuration a compose service runs with (its secrets are files, absent here). */
const envOf = (service: string) =>
  Object.fromEntries(
    Object.entries(compose.services[service].environment ?? {})
      .filter(([k]) => !k.endsWith('_FILE'))
      .map(([k, v]) => [k, interpolate(v)]),
  );
const configOf = (service: string) => ({ ...loadConfig(envOf(service)), ...loadOpsConfig(envOf(service)) });

describe('docker-compose.yml', () => {
  it('restarts every long-running service, and not the one-shot migrate', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      expect([name, s.restart]).toEqual([name, name === 'migrate' ? 'no' : 'unless-stopped']);
    }
  });

  it('gives api and worker a stop grace longer than their longest shutdown wait', () => {
    const api = configOf('api');
    const worker = configOf('worker');
    // service.ts: HTTP waits COMMAND_WAIT_MS + 5 s, workers SHUTDOWN_DEADLINE_MS + 5 s, every later step up to 5 s.
    expect(seconds(compose.services.api.stop_grace_period) * 1000).toBeGreaterThan(api.COMMAND_WAIT_MS + 5_000 + 3 * 5_000);
    expect(seconds(compose.services.worker.stop_grace_period) * 1000).toBeGreaterThan(worker.SHUTDOWN_DEADLINE_MS + 5_000 + 6 * 5_000);
  });

  it('health-checks the worker on /livez at its METRICS_PORT, and the api on /readyz at its PORT', () => {
    const worker = configOf('worker');
    expect(worker.METRICS_PORT).toBeDefined();
    expect(compose.services.worker.healthcheck.test.join(' ')).toContain(`http://127.0.0.1:${worker.METRICS_PORT}/livez`);
    expect(compose.services.api.healthcheck.test.join(' ')).toContain(`http://127.0.0.1:${configOf('api').PORT}/readyz`);
  });

  it('passes every secret by reference: a _FILE under /run/secrets naming a secret the service mounts', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      const env: Record<string, string> = s.environment ?? {};
      for (const variable of [...FILE_VARIABLES, 'POSTGRES_PASSWORD']) {
        if (variable === 'REDIS_URL') continue; // no password on the private network
        expect([name, variable, env[variable]]).toEqual([name, variable, undefined]);
        const file = env[`${variable}_FILE`];
        if (file) expect(s.secrets).toContain(file.replace('/run/secrets/', ''));
      }
    }
    expect(compose.services.api.environment.OPS_TOKEN_FILE).toBe('/run/secrets/ops_token');
    // A worker's /metrics wants the same token as the API's.
    expect(compose.services.worker.environment.OPS_TOKEN_FILE).toBe('/run/secrets/ops_token');
    // Outside production HOST defaults to loopback: the containers say where they listen.
    expect([compose.services.api.environment.HOST, compose.services.worker.environment.HOST]).toEqual(['0.0.0.0', '0.0.0.0']);
    expect(compose.services.migrate.environment.FULFIL_SECRET_KEY_FILE).toBeUndefined();
  });
});

describe('Dockerfile and .dockerignore', () => {
  it('builds on a current Node LTS in stages and runs dist/ as the unprivileged node user', () => {
    const base = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(dockerfile);
    expect(Number(base?.[1])).toBeGreaterThanOrEqual(24);
    expect(dockerfile.match(/^FROM /gm)?.length).toBe(3);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "bin\/fulfil\.mjs"\]$/m);
  });

  it('copies no fixtures, development data or test code into the image', () => {
    expect(dockerfile).not.toMatch(/^COPY .*(fixtures|\.data|test|examples)/m);
    const ignore = read('.dockerignore')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(ignore[0]).toBe('*'); // everything out, then only what the build needs back in
    expect(ignore.filter((l) => /fixtures|\.data|secrets|node_modules|test/.test(l))).toEqual([]);
  });
});
