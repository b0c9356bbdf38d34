import { readFileSync } from 'node:fs';

/**
 * Variables that may carry a secret, so they can also be given by reference: `NAME_FILE` names a
 * file holding the value (Docker and compose `secrets:` mount them under /run/secrets). The
 * value then never appears in the environment, `docker inspect` or a compose file.
 */
export const FILE_VARIABLES = ['FULFIL_SECRET_KEY', 'OPS_TOKEN', 'DATABASE_URL', 'REDIS_URL'] as const;

/**
 * The environment with each `NAME_FILE` read into `NAME` (trailing newline dropped). Setting
 * both, or naming a file that cannot be read, is a problem reported like a bad variable.
 */
export function resolveFileVariables(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; problems: string[] } {
  const out: NodeJS.ProcessEnv = { ...env };
  const problems: string[] = [];
  for (const name of FILE_VARIABLES) {
    const file = env[`${name}_FILE`]?.trim();
    if (!file) continue;
    if (env[name]?.trim()) {
      problems.push(`${name}_FILE: ${name} is set too; give one of them`);
      continue;
    }
    try {
      out[name] = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      problems.push(`${name}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return { env: out, problems };
}
