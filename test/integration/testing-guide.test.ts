import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/redis/private-server.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { dropPrefix, testPrefix } from '../support/redis.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const GUIDE = 'docs/TESTING-YOUR-INTEGRATION.md';

/** The guide's `sh` blocks, in order, each with the heading of its section. */
function guideBlocks(): Array<{ section: string; script: string }> {
  const text = readFileSync(path.join(ROOT, GUIDE), 'utf8');
  const blocks: Array<{ section: string; script: string }> = [];
  let section = '';
  for (const m of text.matchAll(/^## (.*)$|^```sh\n([\s\S]*?)^```$/gm)) {
    if (m[1] !== undefined) section = m[1];
    else blocks.push({ section, script: m[2]! });
  }
  return blocks;
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

interface Event {
  id: string;
  type: string;
  order_id?: number;
  seq?: number;
  created_at: string;
  livemode: boolean;
  test_clock: number | null;
  data: { event?: { details?: Record<string, unknown> | null } };
}

/**
 * docs/TESTING-YOUR-INTEGRATION.md as a broker follows it: the service started as its first block
 * says, then every other `sh` block pasted into one second shell, in order (the ids the earlier
 * blocks put in shell variables reach the later ones as they would in a terminal). Only the ports
 * (8080, 4000) move to free ones, and the data and Redis prefix are the test's own. After each
 * section the test checks what the guide promises there, in the block's output and in the events
 * the example receiver printed.
 */
describe('the guide to testing an integration', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fulfil-guide-'));
  const prefix = testPrefix();
  let service: ChildProcess | undefined;
  let client: ChildProcess | undefined;
  afterAll(async () => {
    await stopGroup(client);
    await stopGroup(service);
    await dropPrefix(prefix);
    rmSync(dataDir, { recursive: true, force: true });
    // The two PDFs the e-ticket section makes, in the repository's directory as a reader's would be.
    for (const f of ['seat-1.pdf', 'seat-2.pdf']) rmSync(path.join(ROOT, f), { force: true });
  }, 60_000);

  it('walks a test order through e-tickets, an escalated issue and a cancellation, each event in test mode on its clock', async () => {
    const blocks = guideBlocks();
    expect(blocks.map((b) => b.section.split('.')[0])).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
    const [servicePort, receiverPort] = [await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(servicePort),
      DATA_DIR: dataDir,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      DATABASE_URL: undefined,
      FULFIL_TOKEN: undefined,
      FULFIL_SECRET: undefined,
      WEBHOOK_SECRETS: undefined,
    };

    let serviceOut = '';
    service = spawn('bash', ['-e', '-c', blocks[0]!.script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    service.stdout!.on('data', (d: Buffer) => (serviceOut += d.toString()));
    service.stderr!.on('data', (d: Buffer) => (serviceOut += d.toString()));
    await expect.poll(() => serviceOut, { timeout: 120_000, interval: 250 }).toContain('"fulfil started"');

    // One shell for the rest, fed block by block as a reader pastes them; -e and pipefail so a
    // failed call ends it (and the test) instead of passing an error on to the next block.
    let out = '';
    client = spawn('bash', ['-e', '-o', 'pipefail'], { cwd: ROOT, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    client.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    client.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const vars: Record<string, string> = {};
    const run = async (i: number): Promise<string> => {
      const start = out.length;
      const script = blocks[i]!.script.replaceAll('4000', String(receiverPort));
      client!.stdin!.write(`${script}\necho "@@done ${i} CLOCK=$CLOCK ORDER=$ORDER ORDER2=$ORDER2"\n`);
      // A shell that stopped (a failed call under -e) ends the wait at once, with what it printed.
      await expect
        .poll(() => (client!.exitCode !== null ? `exited: ${out}` : out.slice(start)), { timeout: 120_000, interval: 200 })
        .toMatch(new RegExp(`@@done ${i} |^exited: `));
      expect(client!.exitCode, `the shell stopped in section ${blocks[i]!.section}:\n${out}`).toBeNull();
      const done = new RegExp(`@@done ${i} CLOCK=(\\d*) ORDER=(\\d*) ORDER2=(\\d*)`).exec(out)!;
      [vars.CLOCK, vars.ORDER, vars.ORDER2] = [done[1]!, done[2]!, done[3]!];
      return out.slice(start, done.index);
    };
    // The receiver prints each event as one line; a call's body (printed without a line break)
    // may stand before it on that line, so an event is found by its start, an id that is a string.
    const EVENT_LINE = /\{"id":"[^"]*","type":"[^\n]*/g;
    const events = (): Event[] => [...out.matchAll(EVENT_LINE)].map((m) => JSON.parse(m[0]) as Event);
    const typesOf = (orderId: string) =>
      events()
        .filter((e) => String(e.order_id) === orderId)
        .map((e) => e.type);
    const waitFor = (what: string, orderId: string, type: string) =>
      expect.poll(() => typesOf(orderId), { timeout: 60_000, interval: 250, message: what }).toContain(type);

    // 1. The credential is a test one.
    expect(await run(1)).toMatch(/"livemode":false/);
    // 2. The receiver runs.
    await run(2);
    // 3. A pending test order on a clock.
    const made = await run(3);
    expect(vars.CLOCK).toMatch(/^\d+$/);
    expect(Number(vars.ORDER)).toBeGreaterThanOrEqual(7_000_000_000_000_000);
    expect(made).toContain(`"oid":"test-${vars.ORDER}"`);
    expect(made).toContain('"state":"pending"');

    // 4. E-tickets: four events, in order; the simulated buyer downloaded both files.
    const etickets = await run(4);
    expect(etickets.match(/"command": "eticket.download"/g)).toHaveLength(2);
    await waitFor('the e-ticket events', vars.ORDER!, 'shipment.completed');
    expect(typesOf(vars.ORDER!)).toEqual(['shipment.created', 'shipment.updated', 'shipment.etickets_uploaded', 'shipment.completed']);

    // 5. The issue, escalated once by the advance, stamped at respond_by (clock time).
    const escalation = await run(5);
    await waitFor('the escalation', vars.ORDER!, 'order.delivery_issue_escalated');
    await expect
      .poll(() => events().filter((e) => e.type === 'test_clock.ready').length, { timeout: 60_000, interval: 250 })
      .toBeGreaterThanOrEqual(1);
    const mine = events().filter((e) => String(e.order_id) === vars.ORDER);
    expect(mine.map((e) => e.type).slice(4)).toEqual(['order.delivery_issue_opened', 'order.delivery_issue_escalated']);
    expect(mine[4]!.created_at).toBe('2027-03-01T12:00:00.000Z');
    expect(mine[5]!.created_at).toBe('2027-03-03T12:00:00.000Z');
    expect(events().map((e) => e.type)).toContain('test_clock.advancing');
    // The order's events, as the block's last call listed them (the receiver's lines set aside).
    expect(escalation.replace(EVENT_LINE, '').match(/"kind":"delivery_issue_escalated"/g)).toHaveLength(1);

    // 6. The cancellation.
    const cancel = await run(6);
    expect(cancel).toMatch(/"state":"canceled"/);
    await waitFor('the cancellation', vars.ORDER2!, 'order.canceled');
    expect(typesOf(vars.ORDER2!)).toEqual(['shipment.created', 'order.cancel_proposed', 'order.canceled']);
    const proposed = events().find((e) => String(e.order_id) === vars.ORDER2 && e.type === 'order.cancel_proposed')!;
    expect(proposed.data.event?.details).toMatchObject({ proposed_by: 'seller' });

    // Every event the receiver printed is a test event on the guide's clock.
    for (const e of events()) expect([e.type, e.livemode, e.test_clock]).toEqual([e.type, false, Number(vars.CLOCK)]);
    expect(out).not.toContain('refused:');

    // 7. Clean up: both orders go with the clock.
    expect(await run(7)).toMatch(/"deleted_orders":2/);
  }, 400_000);
});
