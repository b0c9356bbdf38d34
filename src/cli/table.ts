/**
 * Rows as columns sized to their widest cell (two spaces between), so no value runs into the next
 * however long a state or event kind is; the last column is not padded.
 */
export function tableLines(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]! + 2)))
      .join('')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
