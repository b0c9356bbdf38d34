import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

type Doc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: object }>; headers?: Record<string, unknown> }> }>
  >;
  components: object;
};

/**
 * Checks real answers against the OpenAPI document: the status must be documented for the
 * operation, and the body must match its schema (JSON Schema 2020-12, the dialect of OpenAPI
 * 3.1). Remembers what it saw, so a test can demand that every operation was checked.
 */
export function openApiChecker(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const seen = new Set<string>();
  return {
    seen,
    check(method: string, template: string, status: number, body: unknown, headers?: Headers) {
      const op = doc.paths[template]?.[method.toLowerCase()];
      expect(op, `${method} ${template} is not in the document`).toBeDefined();
      const response = op!.responses[String(status)];
      expect(response, `${method} ${template} answered ${status}, which the document does not list`).toBeDefined();
      const schema = response!.content?.['application/json']?.schema;
      expect(schema, `${method} ${template} ${status} has no JSON schema`).toBeDefined();
      // Refs point into the document's components: compile the schema with them at its root.
      const validate = ajv.compile({ ...schema, components: doc.components });
      const valid = validate(body);
      expect(valid, `${method} ${template} ${status}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(body)}`).toBe(true);
      for (const name of Object.keys(response!.headers ?? {})) {
        if (headers) expect(headers.get(name), `${method} ${template} ${status} lacks header ${name}`).not.toBeNull();
      }
      seen.add(`${method.toUpperCase()} ${template} ${status}`);
    },
    /** A file answer (a PDF, an image): its content type must be one the document lists for the status. */
    checkFile(method: string, template: string, status: number, contentType: string | null) {
      const op = doc.paths[template]?.[method.toLowerCase()];
      expect(op, `${method} ${template} is not in the document`).toBeDefined();
      const content = op!.responses[String(status)]?.content ?? {};
      const type = (contentType ?? '').split(';')[0]!.trim();
      expect(Object.keys(content), `${method} ${template} ${status} answered ${type}`).toContain(type);
      seen.add(`${method.toUpperCase()} ${template} ${status}`);
    },
    operations(): string[] {
      return Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));
    },
  };
}
