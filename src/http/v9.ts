import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps } from './app.ts';

/**
 * Everything under /v9: authenticated, JSON whatever the Content-Type. Each route file only
 * translates HTTP to a command or a query; rules live in workers/ and src/domain/.
 */
export function v9Routes(_deps: AppDeps): FastifyPluginAsync {
  return async (_v9) => {};
}
