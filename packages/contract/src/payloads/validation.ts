import { z } from 'zod';
import { fieldPath, InvalidParams } from '../errors.ts';

/** Ids in payloads: positive integers that survive JSON as numbers. */
export const positiveId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/**
 * Text of at most `max` characters, counted as JSON Schema's maxLength and Postgres count them
 * (code points: an emoji is one), not as UTF-16 units. It is one line unless `lines` is 'many'
 * (notes, instructions): such text reaches labels, pages and terminals, where a control or
 * bidirectional-text character would rewrite what a person sees (isSafeText). A `schema` with a
 * pattern of its own documents the rule in that pattern (NOT_BLANK_LINE in contact-input.ts).
 */
export function textOfAtMost(max: number, schema: z.ZodString = z.string(), lines: 'one' | 'many' = 'one') {
  const own = (schema._zod.def.checks ?? []).some((c) => (c._zod.def as { format?: string }).format === 'regex');
  return schema
    .refine((s) => codePoints(s) <= max, `must be at most ${max} characters`)
    .superRefine(refuseUnsafe(lines))
    .meta({ maxLength: max, ...(own ? {} : { pattern: lines === 'one' ? ONE_LINE_TEXT_PATTERN : TEXT_PATTERN }) });
}

/** The check of textOfAtMost alone, for a schema that must run it before a transform (a trim). */
export function refuseUnsafe(lines: 'one' | 'many') {
  return (s: string, ctx: z.RefinementCtx) => {
    const found = unsafeCharacterOf(s, lines);
    if (found) ctx.addIssue({ code: 'custom', message: unsafeMessage(found), input: s });
  };
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
 * Characters no request text may hold: C0 controls but tab and line feed (a carriage return only
 * before a line feed, as a browser's text area sends a line break), DEL, C1 controls, the line and
 * paragraph separators, and the bidirectional-text controls (U+061C, U+200E, U+200F,
 * U+202A–U+202E, U+2066–U+2069). Through them an address or a note would ring a terminal's bell,
 * move its cursor, or show a page's text reversed (D-170).
 */
const CONTROLS_BUT_CR =
  '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u061C\\u200E\\u200F\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069';
const SURROGATES = '\\uD800-\\uDFFF';

/**
 * The rule for every request string as a JSON Schema pattern (ECMA-262 with Unicode semantics, as
 * JSON Schema reads it: a surrogate pair is one code point, outside the range): storable
 * (isStorableText) and free of the characters above. Its two branches cannot both match, so it never backtracks.
 */
export const TEXT_PATTERN = `^(?:[^${CONTROLS_BUT_CR}\\r${SURROGATES}]|\\r\\n)*$`;
/** One line of text (names, addresses, seats, barcodes): TEXT_PATTERN without tab or line breaks. */
export const ONE_LINE_TEXT_PATTERN = `^[^${CONTROLS_BUT_CR}\\t\\n\\r${SURROGATES}]*$`;
/** For a pattern of its own: what one line may not hold (a character class's body), and the spaces it may. */
export const ONE_LINE_REFUSED = `${CONTROLS_BUT_CR}\\t\\n\\r${SURROGATES}`;
export const ONE_LINE_SPACE = '[^\\S\\t\\n\\u000B\\u000C\\r\\u0085\\u2028\\u2029]';
/** Kept for the document's older name of TEXT_PATTERN. */
export const STORABLE_TEXT_PATTERN = TEXT_PATTERN;

const UNSAFE_MANY = new RegExp(`[${CONTROLS_BUT_CR}]|\\r(?!\\n)`, 'u');
const UNSAFE_ONE = new RegExp(`[${CONTROLS_BUT_CR}\\t\\n\\r]`, 'u');

/** The first character text may not hold, or undefined: in one line, nor tab or line breaks either. */
export function unsafeCharacterOf(s: string, lines: 'one' | 'many' = 'many'): string | undefined {
  return (lines === 'one' ? UNSAFE_ONE : UNSAFE_MANY).exec(s)?.[0];
}

/** Whether a request string keeps to TEXT_PATTERN (a unit test checks the two agree). */
export function isSafeText(s: string): boolean {
  return isStorableText(s) && unsafeCharacterOf(s) === undefined;
}

const codeOf = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const LINE_BREAK = /[\t\n\r]/;

function unsafeMessage(c: string): string {
  if (LINE_BREAK.test(c)) return `must be one line, without tabs or line breaks (found ${codeOf(c)})`;
  if (BIDI.test(c)) return `must not contain bidirectional-text controls (found ${codeOf(c)})`;
  return `must not contain control characters (found ${codeOf(c)})`;
}

/** Deeper than any command needs; a limit keeps a hostile body from exhausting the stack. */
export const MAX_JSON_DEPTH = 32;

/**
 * Refuses a payload with text Postgres cannot store or that holds a control character (above),
 * or nested deeper than MAX_JSON_DEPTH, naming where; without this such a command would fail at
 * the database, or such text reach a page, instead of being refused as bad input. Iterative, so
 * no input can overflow the stack.
 */
export function assertStorableJson(value: unknown, root = ''): void {
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: root, depth: 0 }];
  while (pending.length > 0) {
    const { value: v, path, depth } = pending.pop()!;
    const where = path || 'body';
    if (typeof v === 'string') {
      if (!isStorableText(v)) throw new InvalidParams(`${where}: must not contain NUL or unpaired surrogate characters`, where);
      const found = unsafeCharacterOf(v);
      if (found) throw new InvalidParams(`${where}: ${unsafeMessage(found)}`, where);
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
