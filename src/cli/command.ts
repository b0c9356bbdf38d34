import { parseArgs, type ParseArgsConfig } from 'node:util';
import { OperatorError } from '../operator-error.ts';

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Bytes to stdout exactly as given (a downloaded file); absent where only lines are taken. */
  write?: (bytes: Uint8Array) => Promise<void>;
  /** stdout is a terminal: a person reads it (JSON may be indented), not a file or a pipe. */
  outIsTTY?: boolean;
}

/** The exit status of a command that was queued but not answered in time (D-161): neither done nor refused. */
export const EXIT_NOT_ANSWERED = 3;

export type CliArgs = { values: Record<string, string | boolean | undefined>; positionals: string[] };

/** What a command's module holds: loaded only when that command runs (fast --help). */
export interface CommandModule {
  options?: ParseArgsConfig['options'];
  run(args: CliArgs, io: CliIo): Promise<number>;
}

/** A command as `fulfil --help` and `fulfil <command> --help` show it, without loading its module. */
export interface CommandEntry {
  /** Words that select it, e.g. ['credentials', 'create']. */
  path: string[];
  /** One whole sentence for the overview. */
  brief: string;
  /** The full description for `--help`. */
  summary: string;
  usage: string;
  load(): Promise<CommandModule>;
}

/** A mistake in how the command was called: told with the command's usage. */
export class UsageError extends OperatorError {
  override name = 'UsageError';
}

/** A failure the user can act on (service unreachable, refused input): told in one line, no stack. */
export class CliFailure extends OperatorError {
  override name = 'CliFailure';
}

export function parseCommandArgs(options: CommandModule['options'], argv: string[]): CliArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...options, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
  return { values: values as CliArgs['values'], positionals };
}

export function helpText(cmd: Pick<CommandEntry, 'usage' | 'summary'>): string {
  return `usage: fulfil ${cmd.usage}\n\n${cmd.summary}`;
}

export function intArg(value: string | undefined, name: string): number {
  if (value === undefined || !/^\d+$/.test(value)) throw new UsageError(`${name}: expected a positive integer, got ${value ?? 'nothing'}`);
  return Number(value);
}
