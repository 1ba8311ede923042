/** Where a column's cells sit: text to the left, figures to the right. */
type Alignment = 'left' | 'right';

/** Options of {@link tableLines}. */
export interface TableOptions {
  /** Alignment of each column; a column without one is left-aligned. */
  align?: readonly Alignment[];
  /** Text before every line. @default '' */
  indent?: string;
  /** A line of dashes under the first row, as wide as each column. @default false */
  headerRule?: boolean;
}

/**
 * Rows of cells as lines of aligned columns, two spaces apart, each column as wide as its widest
 * cell. A left-aligned last column is not padded, so no line ends in spaces it did not have.
 */
export function tableLines(rows: readonly (readonly string[])[], options: TableOptions = {}): string[] {
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  const alignOf = (i: number): Alignment => options.align?.[i] ?? 'left';
  const line = (cells: readonly string[]) =>
    (options.indent ?? '') +
    widths
      .map((width, i) => {
        const cell = cells[i] ?? '';
        if (alignOf(i) === 'right') return cell.padStart(width);
        return i === columns - 1 ? cell : cell.padEnd(width);
      })
      .join('  ');
  const lines = rows.map(line);
  if (options.headerRule && lines.length > 0) lines.splice(1, 0, line(widths.map((width) => '-'.repeat(width))));
  return lines;
}
