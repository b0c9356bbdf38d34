import { z } from 'zod';
import { ConfigError } from '../config.ts';

const flag = z
  .string()
  .trim()
  .toLowerCase()
  .optional()
  .refine((v) => v === undefined || ['', 'true', 'false', '1', '0'].includes(v), 'must be true or false')
  .transform((v) => v === 'true' || v === '1');

const opsSchema = z.object({
  /** Lets operators retry, clean and promote jobs on /ops/queues; the board is read-only without it. */
  OPS_WRITE: flag,
  /** Where a `--role worker` process serves /metrics and /livez (0: any free port). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
});

export type OpsConfig = z.infer<typeof opsSchema>;

/** The operator settings, read from the same environment as the rest of the configuration. */
export function loadOpsConfig(env: NodeJS.ProcessEnv = process.env): OpsConfig {
  const parsed = opsSchema.safeParse({ OPS_WRITE: env.OPS_WRITE, METRICS_PORT: env.METRICS_PORT?.trim() || undefined });
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`));
  return parsed.data;
}
