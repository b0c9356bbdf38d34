import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/** Where the typed client's types live: generated from the document by `npm run openapi`. */
export const GENERATED_TYPES = new URL('../generated/openapi-types.ts', import.meta.url);

/** The TypeScript types openapi-typescript generates from an OpenAPI document, as file text. */
export async function typesOf(doc: unknown): Promise<string> {
  return COMMENT_HEADER + astToString(await openapiTS(doc as Parameters<typeof openapiTS>[0]));
}
