/**
 * An instant as operators read it everywhere (pages, CLI, logs' neighbours): ISO 8601 in UTC to
 * the second, `2026-11-26T11:39:09Z`. Postgres text forms (`2026-11-26 11:39:09.3+00`) never reach
 * a person: a timestamp is read as a Date and written through this.
 */
export function isoTime(at: Date | string): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
