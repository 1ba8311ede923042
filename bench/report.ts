import type { LoadResult } from './load.js';

/** The median of some numbers (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** One measured line of the table: its rounds and their medians. */
export interface Measurement {
  id: string;
  label: string;
  method: 'GET' | 'POST';
  path: string;
  rounds: LoadResult[];
  median: { requestsPerSecond: number; p50Ms: number; p99Ms: number };
}

/** Medians over the rounds of one measurement. */
export function summarise(id: string, label: string, method: 'GET' | 'POST', path: string, rounds: LoadResult[]): Measurement {
  return {
    id,
    label,
    method,
    path,
    rounds,
    median: {
      requestsPerSecond: median(rounds.map((r) => r.requestsPerSecond)),
      p50Ms: median(rounds.map((r) => r.p50Ms)),
      p99Ms: median(rounds.map((r) => r.p99Ms)),
    },
  };
}

/** One target of issue 7 and whether this run met it. */
export interface TargetCheck {
  name: string;
  value: number;
  unit: string;
  target: string;
  met: boolean;
}

const number = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '-';

/** The plain-text table `npm run bench` prints. */
export function formatTable(measurements: Measurement[], targets: TargetCheck[], notes: string[]): string {
  const rows = measurements.map((m) => [
    m.label,
    `${m.method} ${m.path}`,
    number(m.median.requestsPerSecond),
    number(m.median.p50Ms, 1),
    number(m.median.p99Ms, 1),
  ]);
  const header = ['server', 'request', 'req/s', 'p50 ms', 'p99 ms'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i >= 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  const targetRows = targets.map((t) => [
    t.name,
    `${number(t.value, t.unit === '' ? 2 : 0)}${t.unit}`,
    t.target,
    t.target === '(reference)' ? '' : t.met ? 'met' : 'NOT met',
  ]);
  const targetWidths = [0, 1, 2].map((i) => Math.max(...targetRows.map((r) => r[i]!.length)));
  return [
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    'targets (ratios: median of the per-round ratios)',
    ...targetRows.map(
      (r) => `  ${r[0]!.padEnd(targetWidths[0]!)}  ${r[1]!.padStart(targetWidths[1]!)}  ${r[2]!.padEnd(targetWidths[2]!)}  ${r[3]}`,
    ),
    '',
    ...notes,
  ].join('\n');
}
