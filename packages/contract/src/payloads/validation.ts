import { z } from 'zod';
import { fieldPath, InvalidParams } from '../errors.ts';

/** Ids in payloads: positive integers that survive JSON as numbers. */
export const positiveId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/**
 * Text of at most `max` characters, counted as JSON Schema's maxLength and Postgres count them
 * (code points: an emoji is one), not as UTF-16 units.
 */
export function textOfAtMost(max: number, schema: z.ZodString = z.string()) {
  return schema.refine((s) => codePoints(s) <= max, `must be at most ${max} characters`).meta({ maxLength: max });
}

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** An array whose items may not repeat: checked, and documented as `uniqueItems`. */
export function uniqueArray<T extends z.ZodType>(item: T, message: string) {
  return z
    .array(item)
    .refine((a) => new Set(a).size === a.length, message)
    .meta({ uniqueItems: true });
}

/** One problem of a request: what is wrong (`field: what`) and where. */
export interface Problem {
  message: string;
  field: string;
}

const ARTICLE = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

/**
 * What a zod issue says, as a predicate of its field ("is missing", "must be at most 3 characters").
 * Messages the schemas write themselves are kept; zod's generic ones ("Invalid input: expected
 * number, received undefined") are rewritten, so every message reads the same way.
 */
function predicate(issue: z.core.$ZodIssue & { input?: unknown }): string {
  if (!/^(Invalid|Too (big|small))/.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is missing' : `must be ${ARTICLE(issue.expected)}`;
    case 'too_small':
    case 'too_big': {
      const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
      const most = issue.code === 'too_small' ? 'at least' : 'at most';
      if (issue.origin === 'string') return `must be ${most} ${String(bound)} characters`;
      if (issue.origin === 'array' || issue.origin === 'set') return `must hold ${most} ${String(bound)} items`;
      const inclusive = issue.inclusive !== false;
      const word = issue.code === 'too_small' ? (inclusive ? 'at least' : 'greater than') : inclusive ? 'at most' : 'less than';
      return `must be ${word} ${String(bound)}`;
    }
    case 'invalid_value':
      return `must be ${issue.values.length === 1 ? JSON.stringify(issue.values[0]) : `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`}`;
    case 'invalid_format':
      return `must be a valid ${issue.format}`;
    case 'invalid_union':
      return 'matches none of the accepted forms';
    default:
      return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
  }
}

/**
 * A cross-field rule (an object's refine) runs beside its fields' rules, so one answer names
 * every problem (zod would skip it while a field is wrong); it still needs an object to look at.
 */
export const BESIDE_FIELD_RULES = {
  when: (payload: { value: unknown }) => typeof payload.value === 'object' && payload.value !== null,
} as const;

/** Every problem of a failed parse, in the order zod found them, each `field: what is wrong`, each once. */
export function problemsOf(error: z.ZodError, where = 'body'): Problem[] {
  const seen = new Set<string>();
  return allProblemsOf(error, where).filter((p) => {
    const key = `${p.field}\u0000${p.message}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

function allProblemsOf(error: z.ZodError, where: string): Problem[] {
  return error.issues.flatMap((issue) => {
    const field = fieldPath(...issue.path);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => {
        const key = fieldPath(...issue.path, k);
        return { message: `${key}: unknown field`, field: key };
      });
    }
    return [{ message: `${field || where}: ${predicate(issue)}`, field: field || where }];
  });
}

/**
 * Parses with a zod schema; a failure is a 400 invalid_params carrying every problem, each
 * naming its field the way the contract spells it (`ship_from_address_attributes.country_code`).
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where = 'body'): z.output<S> {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw InvalidParams.of(closestFormProblems(schema, value, where) ?? problemsOf(parsed.error, where));
}

/**
 * A body that may take several forms (a union of objects, such as the airbill's upload or
 * purchase) is told against the form closest to it: the one that knows most of its fields, then
 * the one with fewest problems. Its missing fields are "required with" the fields given (zod alone
 * answers with whichever form failed last, so `{"airbill": …}` read "airbill: unknown field").
 */
function closestFormProblems(schema: z.ZodType, value: unknown, where: string): Problem[] | undefined {
  // A discriminated union names its form itself (its discriminator's problems are the ones to tell).
  if (!(schema instanceof z.ZodUnion) || schema instanceof z.ZodDiscriminatedUnion) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const forms = schema.options as readonly z.ZodType[];
  if (!forms.every((f) => f instanceof z.ZodObject)) return undefined;
  const given = Object.keys(value);
  const ranked = forms.map((form) => {
    const known = Object.keys((form as z.ZodObject).shape);
    const parsed = form.safeParse(value, { reportInput: true });
    return { known, overlap: given.filter((k) => known.includes(k)).length, issues: parsed.error?.issues.length ?? 0, parsed };
  });
  ranked.sort((a, b) => b.overlap - a.overlap || a.issues - b.issues);
  const best = ranked[0]!;
  if (!best.parsed.error) return undefined;
  const present = given.filter((k) => best.known.includes(k));
  return problemsOf(best.parsed.error, where).map((p) =>
    present.length > 0 && best.known.includes(p.field) && p.message === `${p.field}: is missing`
      ? { ...p, message: `${p.field}: required with ${present.join(' and ')}` }
      : p,
  );
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
 * The same rule as a JSON Schema pattern (ECMA-262 with Unicode semantics, as JSON Schema reads
 * it: a surrogate pair is one code point, outside the range): every request string in the
 * document carries it. A unit test checks it agrees with isStorableText.
 */
export const STORABLE_TEXT_PATTERN = '^[^\\u0000\\uD800-\\uDFFF]*$';

/** Deeper than any command needs; a limit keeps a hostile body from exhausting the stack. */
export const MAX_JSON_DEPTH = 32;

/**
 * Refuses a payload with text Postgres cannot store, or nested deeper than MAX_JSON_DEPTH,
 * naming where; without this such a command would fail at the database instead of being
 * refused as bad input. Iterative, so no input can overflow the stack.
 */
export function assertStorableJson(value: unknown, root = ''): void {
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: root, depth: 0 }];
  while (pending.length > 0) {
    const { value: v, path, depth } = pending.pop()!;
    const where = path || 'body';
    if (typeof v === 'string') {
      if (!isStorableText(v)) throw new InvalidParams(`${where}: must not contain NUL or unpaired surrogate characters`, where);
      continue;
    }
    if (!v || typeof v !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) throw new InvalidParams(`${where}: nested more than ${MAX_JSON_DEPTH} levels deep`, where);
    // Pushed in reverse so the first offending field in document order is the one named.
    for (const [k, child] of Object.entries(v).reverse()) {
      if (!isStorableText(k)) throw new InvalidParams(`${where}: a key contains NUL or unpaired surrogate characters`, where);
      pending.push({ value: child, path: path ? fieldPath(path, k) : k, depth: depth + 1 });
    }
  }
}
