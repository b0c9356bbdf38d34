import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { acceptBody, InvalidParams, parseOrThrow, toErrorBody } from '@fulfil/contract';
import { parseQuery, queryInteger } from '../../src/domain/query-params.ts';

/** The body a refused value gets: every problem, each `field: what is wrong`. */
function refused(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidParams);
    return toErrorBody(err as InvalidParams);
  }
  throw new Error('not refused');
}

describe('validation problems', () => {
  it('a body with several problems is told all of them, one entry each, in one style', () => {
    const body = refused(() => parseOrThrow(acceptBody, { seats: 'all', colour: 'red' }));
    expect(body.errors).toEqual([
      { code: 'invalid_params', message: 'reviewer_id: is missing', field: 'reviewer_id' },
      { code: 'invalid_params', message: 'seats: must be an array', field: 'seats' },
      { code: 'invalid_params', message: 'colour: unknown field', field: 'colour' },
    ]);
  });

  it("rewrites zod's generic texts as predicates of the field; the schemas' own texts stay", () => {
    const schema = z.strictObject({
      name: z.string().max(3),
      kind: z.enum(['a', 'b']),
      n: z.number().int().min(1),
      tags: z.array(z.string()).min(1),
      own: z.string().refine(() => false, 'must be spelled as the list says'),
    });
    const messages = refused(() => parseOrThrow(schema, { name: 'abcd', kind: 'c', n: 0, tags: [], own: 'x' })).errors.map(
      (e) => e.message,
    );
    expect(messages).toEqual([
      'name: must be at most 3 characters',
      'kind: must be one of "a", "b"',
      'n: must be at least 1',
      'tags: must hold at least 1 items',
      'own: must be spelled as the list says',
    ]);
    for (const m of messages) expect(m).not.toMatch(/Invalid|Too (big|small)|expected/);
  });

  it('a query is told every problem in the same style', () => {
    const query = z.strictObject({ limit: queryInteger('limit', 1, 100), after: queryInteger('after', 0, 10).optional() });
    const body = refused(() => parseQuery(query, { limit: '0', after: 'x', colour: 'red' }));
    expect(body.errors.map((e) => [e.message, e.field])).toEqual([
      ['limit: must be greater than or equal to 1', 'limit'],
      ['after: must be a non-negative integer', 'after'],
      ['colour: not a recognised parameter', 'colour'],
    ]);
  });
});
