import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signPayload } from '@fulfil/contract';

// examples/webhook-receiver.mjs as a user runs it (plain `node`, no loader: @fulfil/client as
// `npm ci` built it, through the package's prepare step): its own process on a free port, sent
// real HTTP requests signed as the service signs them.

const REPO = path.resolve(import.meta.dirname, '../..');
const SECRETS = ['whsec_new_0123456789', 'whsec_old_0123456789'];

describe('examples/webhook-receiver.mjs', () => {
  let child: ChildProcess;
  let base: string;
  let stdout = '';
  let stderr = '';

  beforeAll(async () => {
    child = spawn(process.execPath, ['examples/webhook-receiver.mjs'], {
      cwd: REPO,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', WEBHOOK_SECRETS: SECRETS.join(',') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`receiver did not start: ${stderr}`)), 20_000);
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.once('exit', (code) => reject(new Error(`receiver exited ${code}: ${stderr}`)));
    });
  });
  afterAll(async () => {
    if (child?.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  });

  const event = (id: string) => ({
    id,
    type: 'shipment.pickup_details',
    created_at: new Date().toISOString(),
    order_id: 703,
    seq: 2,
    data: {},
  });
  const send = (body: string, headers: Record<string, string>) =>
    fetch(base, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  const printed = () =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));

  it('verifies a signed delivery, answers 204 and prints the event once per event id', async () => {
    const body = JSON.stringify(event('evt-signed'));
    const headers = {
      [SIGNATURE_HEADER]: signPayload([SECRETS[0]!], Math.floor(Date.now() / 1000), body),
      [EVENT_ID_HEADER]: 'evt-signed',
    };
    expect((await send(body, headers)).status).toBe(204);
    // A redelivery (its acknowledgement lost) is acknowledged again but not printed twice.
    expect((await send(body, headers)).status).toBe(204);
    // Signed with the old secret only, during a rotation: accepted too.
    const old = JSON.stringify(event('evt-old-secret'));
    expect((await send(old, { [SIGNATURE_HEADER]: signPayload([SECRETS[1]!], Math.floor(Date.now() / 1000), old) })).status).toBe(204);
    await expect.poll(() => printed().map((e) => e.id)).toEqual(['evt-signed', 'evt-old-secret']);
    expect(printed()[0]).toEqual(JSON.parse(body));
  });

  it('a captured delivery replayed with another Fulfil-Event-Id header is processed once: the id comes from the signed body', async () => {
    const body = JSON.stringify(event('evt-captured'));
    const signature = signPayload([SECRETS[0]!], Math.floor(Date.now() / 1000), body);
    expect((await send(body, { [SIGNATURE_HEADER]: signature, [EVENT_ID_HEADER]: 'evt-captured' })).status).toBe(204);
    // The header is not signed: an attacker replaying the capture within the tolerance may set it freely.
    for (const forged of ['evt-captured-again', 'evt-other', ''])
      expect((await send(body, { [SIGNATURE_HEADER]: signature, [EVENT_ID_HEADER]: forged })).status).toBe(204);
    expect((await send(body, { [SIGNATURE_HEADER]: signature })).status).toBe(204);
    // A later delivery acts as a barrier: once it is printed, every earlier request has been handled.
    const next = JSON.stringify(event('evt-after-replay'));
    await send(next, { [SIGNATURE_HEADER]: signPayload([SECRETS[0]!], Math.floor(Date.now() / 1000), next) });
    await expect.poll(() => printed().map((e) => e.id)).toContain('evt-after-replay');
    expect(printed().filter((e) => e.id === 'evt-captured')).toHaveLength(1);
  });

  it('refuses a tampered body, a stale timestamp, a foreign secret and no signature with 400, printing nothing', async () => {
    const before = printed().length;
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify(event('evt-bad'));
    const tampered = await send(body.replace('"seq":2', '"seq":3'), { [SIGNATURE_HEADER]: signPayload(SECRETS, now, body) });
    expect(tampered.status).toBe(400);
    expect(await tampered.json()).toEqual({ error: 'no_matching_signature' });
    const stale = await send(body, { [SIGNATURE_HEADER]: signPayload(SECRETS, now - 3600, body) });
    expect(await stale.json()).toEqual({ error: 'stale_timestamp' });
    const foreign = await send(body, { [SIGNATURE_HEADER]: signPayload(['whsec_someone_else'], now, body) });
    expect(foreign.status).toBe(400);
    const unsigned = await send(body, {});
    expect(await unsigned.json()).toEqual({ error: 'missing_signature' });
    expect(stderr).toMatch(/refused: no_matching_signature/);
    expect(printed()).toHaveLength(before);
  });
});
