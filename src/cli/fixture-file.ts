import { readFile } from 'node:fs/promises';
import { problemsOf } from '@fulfil/contract';
import { fixtureSchema, type Fixture } from '../domain/fixture.ts';
import { UsageError } from './command.ts';

/** Reads and validates a fixture file; every problem is named by its path in the document. */
export async function readFixtureFile(file: string): Promise<Fixture> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${file}: ${(err as Error).message}`);
  }
  const parsed = fixtureSchema.safeParse(json, { reportInput: true });
  if (!parsed.success) {
    throw new UsageError(
      problemsOf(parsed.error, '(root)')
        .map((p) => `${file}: ${p.message}`)
        .join('\n'),
    );
  }
  return parsed.data;
}
