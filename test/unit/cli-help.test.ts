import { describe, expect, it } from 'vitest';
import { COMMANDS, GROUPS } from '../../src/cli/commands/index.ts';
import { freePort } from '../../src/redis/private-server.ts';
import { runCli } from '../support/cli.ts';

describe('fulfil help', () => {
  it('lists every command with a whole sentence, and --version', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const c of COMMANDS) {
      expect(help.text).toContain(`${c.path.join(' ')}`);
      expect(c.brief).toMatch(/^[A-Z].*\.$/);
      expect(c.brief).not.toContain('\n');
      expect(help.text).toContain(c.brief);
    }
    const v = await runCli(['--version']);
    expect(v).toMatchObject({ code: 0, text: expect.stringMatching(/^fulfil \d+\.\d+\.\d+$/) });
  });

  it('has a description for every group and subgroup: each proper prefix of a command', () => {
    const groups = new Set(COMMANDS.flatMap((c) => c.path.slice(0, -1).map((_, i) => c.path.slice(0, i + 1).join(' '))));
    expect([...groups].sort()).toEqual(Object.keys(GROUPS).sort());
  });

  it.each(Object.keys(GROUPS))('lists the commands of the group %s, by its name, --help and help', async (group) => {
    const words = group.split(' ');
    const members = COMMANDS.filter((c) => c.path.length > words.length && words.every((w, i) => c.path[i] === w)).map((c) =>
      c.path.join(' '),
    );
    expect(members.length).toBeGreaterThan(0);
    for (const args of [words, [...words, '--help'], ['help', ...words]]) {
      const r = await runCli(args);
      expect(r.text).not.toMatch(/unknown command/);
      for (const m of members) expect(r.text).toContain(m);
      // The group's name alone is a question too (fulfil jobs, fulfil shipments etickets): help, exit 0.
      expect(r.code, args.join(' ')).toBe(0);
    }
  });

  it('gives one command its whole description, by --help and by help', async () => {
    for (const c of COMMANDS) {
      const a = await runCli([...c.path, '--help']);
      const b = await runCli(['help', ...c.path]);
      expect(a.code).toBe(0);
      expect(a.text).toBe(`usage: fulfil ${c.usage}\n\n${c.summary}`);
      expect(b.text).toBe(a.text);
    }
  });

  it('names an unknown command or subcommand', async () => {
    const r = await runCli(['jobs', 'frobnicate']);
    expect(r.code).toBe(2);
    expect(r.text).toMatch(/unknown command "jobs frobnicate"/);
    expect(r.text).toContain('jobs retry');
    expect((await runCli(['nope'])).code).toBe(2);
  });

  it('`fulfil call` to a service that is not there says so in one line, no stack trace', async () => {
    const port = await freePort(); // free: nothing listens there
    const r = await runCli(['call', 'GET', '/v9/inventory', '--token', 't', '--secret', 's', '--base', `http://127.0.0.1:${port}`]);
    expect(r.code).toBe(1);
    expect(r.lines).toHaveLength(1);
    expect(r.text).toBe(`fulfil call: cannot reach http://127.0.0.1:${port} (connection refused); set --base or PORT`);
    expect(r.text).not.toMatch(/\n\s+at /);
  });
});
