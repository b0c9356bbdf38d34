import { jsonSchemaOf } from '../openapi/json-schema.ts';
import * as bodies from '../openapi/response-bodies.ts';
import { ok } from '../openapi/route-doc.ts';

// No credential needed on these, so they are not v9() operations: finish-document.ts gives them
// `security: []`.

/** The reference of front-door.ts and health.ts. */
export const SERVICE_DOCS = {
  frontDoor: {
    tags: ['Service'],
    operationId: 'getFrontDoor',
    summary: 'The front door: service, version and where to go next',
    description: 'No credential needed: the first request a newcomer tries says where the reference and the health checks are.',
    response: ok(bodies.frontDoor, 'links to the reference and the health checks'),
  },
  live: {
    tags: ['Service'],
    operationId: 'getLiveness',
    summary: 'Liveness: the process serves',
    description: 'Answers as long as the process serves HTTP, whatever Postgres and Redis do: restart the process when it does not.',
    response: ok(bodies.live, 'alive'),
  },
  ready: {
    tags: ['Service'],
    operationId: 'getReadiness',
    summary: 'Readiness: Postgres and Redis answer',
    description: 'Send traffic here only while it answers 200; the body says ok or down per dependency, never why (that is logged).',
    response: {
      ...ok(bodies.ready, 'ready'),
      503: { description: 'a dependency is down (the body says which)', ...jsonSchemaOf(bodies.ready, 'output') },
    },
  },
};
