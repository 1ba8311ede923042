/** What `npm run load` prints once the keys have been driven, and its verdict. */
import { tableLines } from '../src/shared/text-table.js';
import { allowedFor, type Tally } from './load-driver.js';
import type { ResidentMemory } from './support/process-memory.js';

/** What one run of `npm run load` drove and measured. */
export interface LoadRun {
  tallies: Tally[];
  /** When the keys started sending (epoch milliseconds). */
  startedAt: number;
  /** The server's resident memory (MiB), once a second while the keys were driven. */
  samples: number[];
  before: ResidentMemory | null;
  after: ResidentMemory | null;
}

/** A memory figure as the output shows it. */
export const mib = (memory: ResidentMemory | null) => (memory ? `${memory.rssMiB.toFixed(1)} MiB` : 'n/a');

/** What went wrong for one key: more accepted than allowed, a 5xx, no answer, a polite key banned. */
function problemsOf(t: Tally): string[] {
  return [
    t.accepted > allowedFor(t) ? 'ABOVE LIMIT' : '',
    t.serverErrors > 0 ? '5xx' : '',
    t.networkErrors > 0 ? 'NO ANSWER' : '',
    t.manner === 'honours-retry-after' && t.banned > 0 ? 'BANNED THOUGH POLITE' : '',
  ].filter(Boolean);
}

/** The table of keys, a line per key with its verdict. */
function keyTable(tallies: Tally[]): string {
  const header = ['plan', 'client', 'limit', 'allowed', 'sent', 'accepted', '429', 'banned', '5xx', 'no answer', 'verdict'];
  const rows = tallies.map((t) => {
    const problems = problemsOf(t);
    return [
      t.plan,
      t.manner,
      `${t.limits.perMinute}/min ${t.limits.perDay}/day`,
      String(allowedFor(t)),
      String(t.sent),
      String(t.accepted),
      String(t.rateLimited),
      String(t.banned),
      String(t.serverErrors),
      String(t.networkErrors),
      problems.length > 0 ? problems.join(', ') : 'ok: accepted <= allowed',
    ];
  });
  return tableLines([header, ...rows], { align: header.map((_, i) => (i < 2 ? 'left' : 'right')) }).join('\n');
}

/** The run's report: the key table, the totals and the server's memory; `ok` when no key has a problem. */
export function loadReport(run: LoadRun): { text: string; ok: boolean } {
  const { tallies, startedAt, samples, before, after } = run;
  const ok = tallies.every((t) => problemsOf(t).length === 0);
  const total = (f: (t: Tally) => number) => tallies.reduce((n, t) => n + f(t), 0);
  const seconds = (Math.max(...tallies.map((t) => t.lastAnsweredAt)) - startedAt) / 1000;
  const quarter = (q: number) => samples[Math.min(samples.length - 1, Math.floor((samples.length * q) / 4))];
  const text =
    `\n${keyTable(tallies)}\n\n` +
    `${total((t) => t.sent)} requests in ${seconds.toFixed(1)} s (${(total((t) => t.sent) / seconds).toFixed(0)}/s), ` +
    `${total((t) => t.accepted)} accepted, ${total((t) => t.rateLimited)} rate limited, ${total((t) => t.banned)} banned, ` +
    `${total((t) => t.serverErrors)} 5xx, ${total((t) => t.networkErrors)} without an answer.\n` +
    `"allowed" is the limit times the fixed windows (minutes, days) the key's requests spanned.\n` +
    `Server memory (RSS): before ${mib(before)}, during ${[1, 2, 3].map((q) => `${quarter(q)?.toFixed(1) ?? 'n/a'}`).join(' / ')} MiB ` +
    `(at 1/4, 1/2, 3/4), after ${mib(after)}, peak ${after?.peakMiB === undefined ? 'n/a' : `${after.peakMiB.toFixed(1)} MiB`}.\n` +
    (ok ? 'OK: no key above its limit, no 5xx, every request answered.\n' : 'FAILED: see the verdicts above.\n');
  return { text, ok };
}
