import type { FastifyInstance } from 'fastify';
import { SERVICE } from '../openapi/service-info.ts';
import { SERVICE_DOCS } from './service.docs.ts';

const FRONT_DOOR = {
  service: SERVICE.name,
  version: SERVICE.version,
  description: SERVICE.description,
  links: { docs: '/docs', openapi: '/openapi.json', reference: 'docs/API.md in the repository', livez: '/livez', readyz: '/readyz' },
};

/** What a newcomer's first request (`curl http://host/`, or /v9) finds: where to go next. No credential needed. */
export function frontDoorRoutes(app: FastifyInstance): void {
  app.get('/', { schema: SERVICE_DOCS.frontDoor }, async () => FRONT_DOOR);
  app.get('/v9', { schema: { hide: true } }, async () => FRONT_DOOR);
}
