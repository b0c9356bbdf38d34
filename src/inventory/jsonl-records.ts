import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { assertStorableJson, problemsOf } from '@fulfil/contract';
import { ticketGroupInput, type TicketGroupInput } from '@fulfil/contract';

export type JsonlItem = { line: number; record: TicketGroupInput } | { line: number; problem: string };

/** Fields of a detailed export line that the service sets itself; an import ignores them. */
const SERVICE_FIELDS = ['created_at', 'updated_at'] as const;

/**
 * The ticket groups of a JSON-lines file, one line at a time (readline over a stream: memory
 * stays flat whatever the file's size). Blank lines are skipped; a bad line yields a problem that
 * names the line and the field. Lines of `inventory export --detailed` are accepted as they are:
 * created_at/updated_at are dropped and office_id, when present, must be the target office.
 */
export async function* readJsonlRecords(file: string, officeId: number): AsyncGenerator<JsonlItem, void, void> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      yield { line, problem: `not valid JSON (${(err as Error).message})` };
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      yield { line, problem: 'expected a JSON object' };
      continue;
    }
    try {
      assertStorableJson(value);
    } catch (err) {
      yield { line, problem: (err as Error).message };
      continue;
    }
    const { office_id: lineOffice, ...rest } = value as Record<string, unknown>;
    for (const f of SERVICE_FIELDS) delete rest[f];
    if (lineOffice !== undefined && lineOffice !== officeId) {
      yield { line, problem: `office_id: ${JSON.stringify(lineOffice)} is not the office being imported to (${officeId})` };
      continue;
    }
    const parsed = ticketGroupInput.safeParse(rest, { reportInput: true });
    if (parsed.success) {
      yield { line, record: parsed.data };
    } else {
      // Told as the API tells a body's problems (`field: what is wrong`), all of them.
      yield {
        line,
        problem: problemsOf(parsed.error, '(record)')
          .map((p) => p.message)
          .join('; '),
      };
    }
  }
}
