// npm run openapi: writes docs/openapi.json from the routes' own schemas; a test fails while the
// committed file differs from what the service serves.
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument, openApiFileText } from '../src/http/openapi/document.ts';

const target = new URL('../docs/openapi.json', import.meta.url);
writeFileSync(target, openApiFileText(await buildOpenApiDocument()));
console.log(`wrote ${target.pathname}`);
