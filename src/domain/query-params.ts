import { z } from 'zod';
import { InvalidParams } from '@fulfil/contract';

/**
 * An integer query parameter: it arrives as text, and only plain digits become a number ("+5",
 * "1e3", "2.0" and " 7" stay text and are refused rather than guessed at). The schema seen by
 * the document is the integer with its bounds, so the document and the check share them.
 */
export function queryInteger(name: string, min: number, max: number) {
  const kind = min === 0 ? 'a non-negative' : 'a positive';
  return z.preprocess(
    (v) => (typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : v),
    z
      .number({ error: (iss) => (iss.input === undefined ? `${name} is missing` : `${name} must be ${kind} integer`) })
      .int({ error: `${name} must be ${kind} integer` })
      .min(min, `${name} must be greater than or equal to ${min}`)
      .max(max, `${name} must be less than or equal to ${max}`),
  );
}

/**
 * Parses a query with a schema whose messages are written in full (as queryInteger's are): the
 * first problem becomes a 400 naming its parameter.
 */
export function parseQuery<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') throw new InvalidParams(`${issue.keys[0]} is not a recognised parameter`, issue.keys[0]);
  const field = issue.path.map(String).join('.');
  throw new InvalidParams(issue.message, field || undefined);
}
