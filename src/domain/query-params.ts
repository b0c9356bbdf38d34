import { z } from 'zod';
import { fieldPath, InvalidParams } from '@fulfil/contract';

/**
 * An integer query parameter: it arrives as text, and only plain digits become a number ("+5",
 * "1e3", "2.0" and " 7" stay text and are refused rather than guessed at). The schema seen by
 * the document is the integer with its bounds, so the document and the check share them.
 */
export function queryInteger(name: string, min: number, max: number, maxMessage?: string) {
  const kind = min === 0 ? 'a non-negative' : 'a positive';
  return z.preprocess(
    (v) => (typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : v),
    z
      .number({ error: (iss) => (iss.input === undefined ? `${name}: is missing` : `${name}: must be ${kind} integer`) })
      .int({ error: `${name}: must be ${kind} integer` })
      .min(min, `${name}: must be greater than or equal to ${min}`)
      .max(max, maxMessage ?? `${name}: must be less than or equal to ${max}`),
  );
}

/**
 * Parses a query with a schema whose messages name their parameter (as queryInteger's do):
 * every problem, in the body's style (`name: what is wrong`), in one 400.
 */
export function parseQuery<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  throw InvalidParams.of(
    parsed.error.issues.flatMap((issue) => {
      if (issue.code === 'unrecognized_keys') return issue.keys.map((k) => ({ message: `${k}: not a recognised parameter`, field: k }));
      const field = fieldPath(...issue.path);
      return [{ message: issue.message, field: field || undefined }];
    }),
  );
}
