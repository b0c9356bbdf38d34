import type { z } from 'zod';
import { InvalidParams } from '../errors.ts';

/**
 * Parses with a zod schema; the first problem becomes a 400 invalid_params whose message names
 * the field the way the contract spells it (`ship_from_address_attributes.country_code`).
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where = 'body'): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map(String).join('.');
  const message = issue.code === 'unrecognized_keys'
    ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => (field ? `${field}.${k}` : k)).join(', ')}`
    : `${field || where}: ${issue.message}`;
  throw new InvalidParams(message, field ? field : issue.code === 'unrecognized_keys' ? issue.keys[0] : where);
}

/** Path ids: positive integers within the safe range, or 400 naming the parameter. */
export function parseId(value: unknown, name: string): number {
  const s = String(value ?? '');
  if (!/^[1-9]\d{0,15}$/.test(s) || !Number.isSafeInteger(Number(s))) {
    throw new InvalidParams(`${name}: must be a positive integer`, name);
  }
  return Number(s);
}

// Postgres text and jsonb cannot hold NUL, and jsonb refuses unpaired surrogates.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(s: string): boolean {
  return !UNSTORABLE.test(s);
}

/**
 * Refuses a payload with text Postgres cannot store, naming where it is; without this such a
 * command would fail at the database instead of being refused as bad input.
 */
export function assertStorableJson(value: unknown, path = ''): void {
  if (typeof value === 'string') {
    if (!isStorableText(value)) throw new InvalidParams(`${path || 'body'}: must not contain NUL or unpaired surrogate characters`, path || 'body');
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => assertStorableJson(v, path ? `${path}.${i}` : String(i)));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (!isStorableText(k)) throw new InvalidParams(`${path || 'body'}: a key contains NUL or unpaired surrogate characters`, path || 'body');
      assertStorableJson(v, path ? `${path}.${k}` : k);
    }
  }
}
