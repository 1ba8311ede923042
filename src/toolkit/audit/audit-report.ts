/** What `npm audit --json` printed, reduced to what the release gate decides on. */
export type AuditOutcome =
  | { kind: 'checked'; dependencies: number; counts: Record<Severity, number>; blocking: AuditFinding[] }
  | { kind: 'unavailable'; reason: string };

export type Severity = 'info' | 'low' | 'moderate' | 'high' | 'critical';

/** One vulnerable package at or above the gate's severity. */
export interface AuditFinding {
  name: string;
  severity: Severity;
  range: string;
  /** Advisory titles and addresses, or the packages it is vulnerable through. */
  via: string[];
  fixAvailable: boolean;
}

const SEVERITIES: Severity[] = ['info', 'low', 'moderate', 'high', 'critical'];

/** Whether `severity` is at least `threshold`. */
export function atLeast(severity: Severity, threshold: Severity): boolean {
  return SEVERITIES.indexOf(severity) >= SEVERITIES.indexOf(threshold);
}

/**
 * Reads the JSON `npm audit --json` printed (report format 2, npm 7 and later). A registry that
 * does not serve the advisory database answers with an HTTP error instead of a report; that is
 * `unavailable`, never a pass.
 */
export function readAuditReport(json: string, threshold: Severity = 'high'): AuditOutcome {
  let report: Record<string, any>;
  try {
    report = JSON.parse(json) as Record<string, any>;
  } catch {
    return { kind: 'unavailable', reason: `npm audit printed no JSON report: ${json.slice(0, 200) || '(nothing)'}` };
  }
  if (!report.vulnerabilities || !report.metadata?.vulnerabilities) {
    const status = report.statusCode ? `HTTP ${report.statusCode}` : 'an error';
    return { kind: 'unavailable', reason: `the advisory database answered ${status}${report.message ? `: ${report.message}` : ''}` };
  }
  const blocking: AuditFinding[] = Object.values(report.vulnerabilities as Record<string, any>)
    .filter((v) => atLeast(v.severity as Severity, threshold))
    .map((v) => ({
      name: String(v.name),
      severity: v.severity as Severity,
      range: String(v.range ?? ''),
      via: (v.via as unknown[]).map((via) => (typeof via === 'string' ? `through ${via}` : `${(via as any).title} (${(via as any).url})`)),
      fixAvailable: Boolean(v.fixAvailable),
    }));
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, Number(report.metadata.vulnerabilities[s] ?? 0)])) as Record<
    Severity,
    number
  >;
  return {
    kind: 'checked',
    dependencies: Number(report.metadata.dependencies?.prod ?? report.metadata.dependencies?.total ?? 0),
    counts,
    blocking,
  };
}
