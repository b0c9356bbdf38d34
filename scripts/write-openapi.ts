// npm run openapi: writes docs/openapi.json from the routes' own schemas, the types a client
// generated from it gets (test/generated/openapi-types.ts, openapi-typescript) and the SDK
// @hey-api/openapi-ts generates (test/generated/hey-api/), which the generated-client tests use;
// a test fails while any committed file differs from what the service serves.
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument, openApiFileText } from '../src/http/openapi/document.ts';
import { GENERATED_TYPES, typesOf } from '../test/support/generated-types.ts';
import { GENERATED_SDK, sdkOf, writeSdk } from '../test/support/generated-sdk.ts';

const target = new URL('../docs/openapi.json', import.meta.url);
const doc = await buildOpenApiDocument();
writeFileSync(target, openApiFileText(doc));
console.log(`wrote ${target.pathname}`);
writeFileSync(GENERATED_TYPES, await typesOf(doc));
console.log(`wrote ${GENERATED_TYPES.pathname}`);
writeSdk(await sdkOf(doc));
console.log(`wrote ${GENERATED_SDK}`);
