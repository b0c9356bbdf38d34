import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

export interface CliCommand {
  /** Words that select it, e.g. ['credentials', 'create']. */
  path: string[];
  summary: string;
  usage: string;
  options?: ParseArgsConfig['options'];
  run(args: { values: Record<string, string | boolean | undefined>; positionals: string[] }, io: CliIo): Promise<number>;
}

export class UsageError extends Error {}

export function parseCommandArgs(cmd: CliCommand, argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...cmd.options, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
  return { values: values as Record<string, string | boolean | undefined>, positionals };
}

export function helpText(cmd: CliCommand): string {
  return `usage: fulfil ${cmd.usage}\n\n${cmd.summary}`;
}

export function intArg(value: string | undefined, name: string): number {
  if (value === undefined || !/^\d+$/.test(value)) throw new UsageError(`${name}: expected a positive integer, got ${value ?? 'nothing'}`);
  return Number(value);
}
