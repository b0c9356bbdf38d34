import { z } from 'zod';
import { TEXT_PATTERN } from '@fulfil/contract';

export type JsonSchema = Record<string, unknown>;

/**
 * A zod schema as JSON Schema 2020-12, the dialect of OpenAPI 3.1. Requests are described as
 * they arrive (input: before transforms), responses as they leave (output). In a request, a
 * string with no pattern of its own gets TEXT_PATTERN: every body is refused with NUL, an
 * unpaired surrogate or a control character anywhere (src/http/body.ts), and the document says
 * so where it applies. (The service's own patterns are ASCII classes, or exclude these characters.)
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    override: ({ jsonSchema: s }) => {
      if (io === 'input' && s.type === 'string' && s.pattern === undefined && s.enum === undefined && s.const === undefined) {
        s.pattern = TEXT_PATTERN;
      }
    },
  }) as JsonSchema;
  return rest;
}
