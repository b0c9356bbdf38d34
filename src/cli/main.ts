import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isOperatorError } from '../operator-error.ts';
import { PROJECT_ROOT } from '../project-root.ts';
import { helpText, parseCommandArgs, UsageError, type CliIo, type CommandEntry } from './command.ts';
import { COMMANDS, GROUPS } from './commands/index.ts';

// Only light modules above: the overview, a command's --help and --version load nothing else.

const defaultIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  write: (bytes) => new Promise((resolve) => process.stdout.write(bytes, () => resolve())),
  outIsTTY: process.stdout.isTTY === true,
};

export function version(): string {
  // Found by walking up: src/cli/ in development, dist/src/cli/ once built.
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

function rows(entries: readonly CommandEntry[]): string {
  const width = Math.max(...entries.map((c) => c.path.join(' ').length)) + 2;
  return entries.map((c) => `  ${c.path.join(' ').padEnd(width)}${c.brief}`).join('\n');
}

function overview(): string {
  return (
    'usage: fulfil <command> [options]   (fulfil <command> --help, or fulfil help <command>, for one command)\n\n' +
    `commands:\n${rows(COMMANDS)}\n\n  --version  prints the version`
  );
}

/** The commands under a group's words (`shipments`, `shipments etickets`): those whose path is longer and starts with them. */
function membersOf(group: readonly string[]): CommandEntry[] {
  return COMMANDS.filter((c) => c.path.length > group.length && group.every((w, i) => c.path[i] === w));
}

function groupHelp(group: readonly string[]): string {
  const name = group.join(' ');
  const about = GROUPS[name] ? `${GROUPS[name]}\n\n` : '';
  return `usage: fulfil ${name} <command> [options]\n\n${about}commands:\n${rows(membersOf(group))}`;
}

/** The longest run of argv's first words that is a group (a subgroup such as `shipments etickets` included). */
function groupOf(argv: readonly string[]): string[] | undefined {
  for (let n = argv.length; n >= 1; n--) {
    const words = argv.slice(0, n);
    if (membersOf(words).length > 0) return words;
  }
  return undefined;
}

/** Picks the command whose words match the longest prefix of argv. */
function find(argv: string[]): { cmd?: CommandEntry; rest: string[] } {
  let best: CommandEntry | undefined;
  for (const c of COMMANDS) {
    if (c.path.every((w, i) => argv[i] === w) && (!best || c.path.length > best.path.length)) best = c;
  }
  return { cmd: best, rest: best ? argv.slice(best.path.length) : argv };
}

export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  if (argv.length === 0) {
    io.out(overview());
    return 2;
  }
  if (argv[0] === '--help' || argv[0] === '-h') {
    io.out(overview());
    return 0;
  }
  if (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version') {
    io.out(`fulfil ${version()}`);
    return 0;
  }
  if (argv[0] === 'help') return help(argv.slice(1), io);
  const { cmd, rest } = find(argv);
  if (!cmd) {
    const group = groupOf(argv);
    if (group) {
      // A group's name alone asks what it holds, as --help does: answered, exit 0.
      const next = argv[group.length];
      const asked = next === undefined || next === '--help' || next === '-h';
      if (asked) io.out(groupHelp(group));
      else io.err(`fulfil: unknown command "${argv.slice(0, group.length + 1).join(' ')}"\n\n${groupHelp(group)}`);
      return asked ? 0 : 2;
    }
    io.err(`fulfil: unknown command "${argv[0]}"\n\n${overview()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(helpText(cmd));
    return 0;
  }
  try {
    const module = await cmd.load();
    return await module.run(parseCommandArgs(module.options, rest), io);
  } catch (err) {
    return tellFailure(cmd, err, io);
  }
}

/**
 * How a command that threw ends: a usage mistake with the usage (exit 2); an OperatorError
 * (src/operator-error.ts), the operator's to fix, in its one line (exit 1); anything else is
 * unexpected: the message and its cause, the stack only when asked for (FULFIL_DEBUG=1).
 */
export function tellFailure(cmd: CommandEntry, err: unknown, io: CliIo): number {
  const name = `fulfil ${cmd.path.join(' ')}`;
  const e = err as Error & { code?: string };
  if (err instanceof UsageError || e.code?.startsWith('ERR_PARSE_ARGS')) {
    io.err(`${name}: ${e.message}\n\n${helpText(cmd)}`);
    return 2;
  }
  if (isOperatorError(err)) {
    io.err(`${name}: ${e.message}`);
    return 1;
  }
  const cause = e.cause instanceof Error ? ` (${e.cause.message})` : '';
  io.err(`${name}: ${e.message ?? String(err)}${cause}`);
  if (process.env.FULFIL_DEBUG === '1' && e.stack) io.err(e.stack);
  else io.err('(set FULFIL_DEBUG=1 to see where it failed)');
  return 1;
}

function help(words: string[], io: CliIo): number {
  if (words.length === 0) {
    io.out(overview());
    return 0;
  }
  const exact = COMMANDS.find((c) => c.path.join(' ') === words.join(' '));
  if (exact) {
    io.out(helpText(exact));
    return 0;
  }
  if (membersOf(words).length > 0) {
    io.out(groupHelp(words));
    return 0;
  }
  io.err(`fulfil help: no command "${words.join(' ')}"\n\n${overview()}`);
  return 2;
}
