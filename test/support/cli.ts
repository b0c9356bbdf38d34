import { main } from '../../src/cli/main.ts';

/**
 * Runs a `fulfil` command in this process, as the real bin does, with the given variables set
 * (undefined removes one) for the call only; returns its exit code and everything it printed.
 */
export async function runCli(args: string[], env: Record<string, string | undefined> = {}) {
  const lines: string[] = [];
  const saved = { ...process.env };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    const code = await main(args, { out: (l) => lines.push(l), err: (l) => lines.push(l) });
    return { code, lines, text: lines.join('\n') };
  } finally {
    process.env = saved;
  }
}
