// npm run openapi: writes docs/openapi.json from the routes' own schemas, and the types a client
// generated from it gets (test/generated/openapi-types.ts, which the typed-client test uses); a
// test fails while either committed file differs from what the service serves.
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument, openApiFileText } from '../src/http/openapi/document.ts';
import { GENERATED_TYPES, typesOf } from '../test/support/generated-types.ts';

const target = new URL('../docs/openapi.json', import.meta.url);
const doc = await buildOpenApiDocument();
writeFileSync(target, openApiFileText(doc));
console.log(`wrote ${target.pathname}`);
writeFileSync(GENERATED_TYPES, await typesOf(doc));
console.log(`wrote ${GENERATED_TYPES.pathname}`);
