import type { JsonSchema } from './json-schema.ts';

/**
 * A query of several modes (`oneOf` object schemas) as the plain query parameters a generated
 * client sends, one `key=value` each: every key any mode takes, with the values any mode allows
 * (enums joined, integer bounds widened), required only where every mode requires it. What the
 * parameters cannot say (which keys go together) stays in the operation's `x-query-modes`, the
 * `oneOf` itself; the service checks the modes whatever the document says.
 */
export function plainQueryOf(modes: JsonSchema, descriptions: Record<string, string>): JsonSchema {
  const branches = (modes.oneOf ?? modes.anyOf) as JsonSchema[] | undefined;
  if (!branches?.length) throw new Error('plainQueryOf: the modes are a oneOf of object schemas');
  const properties: Record<string, JsonSchema> = {};
  for (const branch of branches) {
    for (const [name, schema] of Object.entries((branch.properties ?? {}) as Record<string, JsonSchema>)) {
      properties[name] = properties[name] ? widened(properties[name], schema) : { ...schema };
    }
  }
  for (const [name, description] of Object.entries(descriptions)) {
    if (!properties[name]) throw new Error(`plainQueryOf: no mode takes ${name}`);
    properties[name].description = description;
  }
  const missing = Object.keys(properties).filter((name) => typeof properties[name]!.description !== 'string');
  if (missing.length) throw new Error(`plainQueryOf: say what ${missing.join(', ')} mean`);
  const required = Object.keys(properties).filter((name) => branches.every((b) => ((b.required ?? []) as string[]).includes(name)));
  return { type: 'object', properties, required, additionalProperties: false };
}

function values(s: JsonSchema): unknown[] | undefined {
  if (Array.isArray(s.enum)) return s.enum as unknown[];
  return 'const' in s ? [s.const] : undefined;
}

function widened(a: JsonSchema, b: JsonSchema): JsonSchema {
  if (a.type !== b.type) throw new Error(`plainQueryOf: a parameter is ${String(a.type)} in one mode and ${String(b.type)} in another`);
  const out: JsonSchema = { ...a };
  const [va, vb] = [values(a), values(b)];
  delete out.const;
  if (va && vb) out.enum = [...new Set([...va, ...vb])];
  else delete out.enum;
  for (const [key, pick] of [
    ['minimum', Math.min],
    ['maximum', Math.max],
  ] as const) {
    if (typeof a[key] === 'number' && typeof b[key] === 'number') out[key] = pick(a[key], b[key]);
    else delete out[key];
  }
  // Each mode says what the key means to it: the caller words the parameter for all of them.
  delete out.description;
  return out;
}
