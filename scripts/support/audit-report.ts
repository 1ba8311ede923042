/** What `npm audit --json` printed, reduced to what the release gate decides on. */
export type AuditOutcome =
  | { kind: 'checked'; dependencies: number; counts: Record<Severity, number>; blocking: AuditFinding[] }
  | { kind: 'unavailable'; reason: string };

export type Severity = 'info' | 'low' | 'moderate' | 'high' | 'critical';

/** One vulnerable package at or above the gate's severity. */
interface AuditFinding {
  name: string;
  severity: Severity;
  range: string;
  /** Advisory titles and addresses, or the packages it is vulnerable through. */
  via: string[];
  fixAvailable: boolean;
}

const SEVERITIES: Severity[] = ['info', 'low', 'moderate', 'high', 'critical'];

/** Whether `severity` is at least `threshold`. */
function atLeast(severity: Severity, threshold: Severity): boolean {
  return SEVERITIES.indexOf(severity) >= SEVERITIES.indexOf(threshold);
}

/** The parts of npm's audit report (format 2) the gate reads; an HTTP error has the last three instead. */
interface AuditReportJson {
  vulnerabilities?: Record<string, VulnerabilityJson>;
  metadata?: { vulnerabilities?: Partial<Record<Severity, number>>; dependencies?: { prod?: number; total?: number } };
  statusCode?: number;
  message?: string;
}

interface VulnerabilityJson {
  name: string;
  severity: Severity;
  range?: string;
  via: (string | { title?: string; url?: string })[];
  fixAvailable?: unknown;
}

/**
 * Reads the JSON `npm audit --json` printed (report format 2, npm 7 and later). A registry that
 * does not serve the advisory database answers with an HTTP error instead of a report; that is
 * `unavailable`, never a pass.
 */
export function readAuditReport(json: string, threshold: Severity = 'high'): AuditOutcome {
  let report: AuditReportJson;
  try {
    report = JSON.parse(json) as AuditReportJson;
  } catch {
    return { kind: 'unavailable', reason: `npm audit printed no JSON report: ${json.slice(0, 200) || '(nothing)'}` };
  }
  const severities = report.metadata?.vulnerabilities;
  if (!report.vulnerabilities || !severities) {
    const status = report.statusCode ? `HTTP ${report.statusCode}` : 'an error';
    return { kind: 'unavailable', reason: `the advisory database answered ${status}${report.message ? `: ${report.message}` : ''}` };
  }
  const blocking: AuditFinding[] = Object.values(report.vulnerabilities)
    .filter((v) => atLeast(v.severity, threshold))
    .map((v) => ({
      name: String(v.name),
      severity: v.severity,
      range: String(v.range ?? ''),
      via: v.via.map((via) => (typeof via === 'string' ? `through ${via}` : `${via.title} (${via.url})`)),
      fixAvailable: Boolean(v.fixAvailable),
    }));
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, Number(severities[s] ?? 0)])) as Record<Severity, number>;
  const dependencies = report.metadata?.dependencies;
  return { kind: 'checked', dependencies: Number(dependencies?.prod ?? dependencies?.total ?? 0), counts, blocking };
}
