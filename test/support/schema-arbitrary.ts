import fc from 'fast-check';

type Schema = Record<string, any>;

/**
 * fast-check values for a JSON Schema of the OpenAPI document (the subset its request schemas
 * use). It aims at valid values, not only valid ones: a caller keeps those the document's own
 * validator accepts, so this needs to be broad, not exact.
 */
export function arbitraryOf(schema: Schema, components: Schema = {}): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === 'string') return arbitraryOf(components[schema.$ref.split('/').pop()!], components);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const type = schema.type as string | undefined;
  if (type === undefined && (schema.oneOf || schema.anyOf)) {
    return fc.oneof(...((schema.oneOf ?? schema.anyOf) as Schema[]).map((s) => arbitraryOf(s, components)));
  }
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integer(schema);
    case 'string':
      return string(schema);
    case 'array': {
      const items = arbitraryOf(schema.items ?? {}, components);
      const bounds = { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 5, 5) };
      return schema.uniqueItems ? fc.uniqueArray(items, { ...bounds, selector: (v) => JSON.stringify(v) }) : fc.array(items, bounds);
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const model = Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, arbitraryOf(s, components)]));
      return fc.record(model, { requiredKeys: (schema.required ?? []) as string[] });
    }
    default:
      return fc.jsonValue();
  }
}

function integer(schema: Schema): fc.Arbitrary<number> {
  const min: number = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1000);
  const max: number = schema.maximum ?? Number.MAX_SAFE_INTEGER;
  return fc.oneof(
    fc.integer({ min, max: Math.min(max, min + 1000) }),
    fc.constantFrom(min, max),
    fc.maxSafeNat().filter((n) => n >= min && n <= max),
  );
}

function string(schema: Schema): fc.Arbitrary<string> {
  const minLength: number = schema.minLength ?? 0;
  const maxLength: number = schema.maxLength ?? 60;
  const base = schema.pattern
    ? fc.stringMatching(new RegExp(schema.pattern as string, 'u'))
    : fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, 60) });
  return base.filter((s) => [...s].length >= minLength && [...s].length <= maxLength);
}
