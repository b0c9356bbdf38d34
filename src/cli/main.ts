import { ConfigError } from '../config.ts';
import { EmbeddedDatabaseBusy } from '../db/pglite-lock.ts';
import { NoRedisError } from '../redis/resolve.ts';
import { helpText, parseCommandArgs, UsageError, type CliCommand, type CliIo } from './command.ts';
import { COMMANDS } from './commands/index.ts';

const defaultIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

function overview(): string {
  const rows = COMMANDS.map((c) => `  ${c.path.join(' ').padEnd(24)} ${c.summary.split('\n')[0]}`);
  return `usage: fulfil <command> [options]   (fulfil <command> --help for one command)\n\ncommands:\n${rows.join('\n')}`;
}

/** Picks the command whose words match the longest prefix of argv. */
function find(argv: string[]): { cmd?: CliCommand; rest: string[] } {
  let best: CliCommand | undefined;
  for (const c of COMMANDS) {
    if (c.path.every((w, i) => argv[i] === w) && (!best || c.path.length > best.path.length)) best = c;
  }
  return { cmd: best, rest: best ? argv.slice(best.path.length) : argv };
}

export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.out(overview());
    return argv.length === 0 ? 2 : 0;
  }
  const { cmd, rest } = find(argv);
  if (!cmd) {
    io.err(`fulfil: unknown command "${argv.join(' ')}"\n\n${overview()}`);
    return 2;
  }
  try {
    const args = parseCommandArgs(cmd, rest);
    if (args.values.help) {
      io.out(helpText(cmd));
      return 0;
    }
    return await cmd.run(args, io);
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`fulfil ${cmd.path.join(' ')}: ${(err as Error).message}\n\n${helpText(cmd)}`);
      return 2;
    }
    if (err instanceof ConfigError || err instanceof NoRedisError || err instanceof EmbeddedDatabaseBusy) {
      io.err(`fulfil: ${err.message}`);
      return 1;
    }
    io.err(`fulfil ${cmd.path.join(' ')}: ${(err as Error).stack ?? String(err)}`);
    return 1;
  }
}
