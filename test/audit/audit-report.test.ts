import { describe, expect, it } from 'vitest';
import { readAuditReport } from '../../scripts/support/audit-report.js';

// The shape `npm audit --json` prints (auditReportVersion 2), trimmed to two packages.
const report = (severities: Record<string, string>) =>
  JSON.stringify({
    auditReportVersion: 2,
    vulnerabilities: Object.fromEntries(
      Object.entries(severities).map(([name, severity]) => [
        name,
        {
          name,
          severity,
          isDirect: false,
          via: [
            {
              source: 1,
              name,
              title: `${name} is slow on long input`,
              url: `https://github.com/advisories/GHSA-${name}`,
              severity,
              range: '<2.0.0',
            },
            'express',
          ],
          effects: [],
          range: '<2.0.0',
          nodes: [`node_modules/${name}`],
          fixAvailable: true,
        },
      ]),
    ),
    metadata: {
      vulnerabilities: {
        info: 0,
        low: 0,
        moderate: 0,
        high: 0,
        critical: 0,
        total: 0,
        ...Object.fromEntries(Object.values(severities).map((s) => [s, 1])),
      },
      dependencies: { prod: 120, dev: 300, optional: 0, peer: 0, peerOptional: 0, total: 420 },
    },
  });

describe('readAuditReport', () => {
  it('blocks on a high or critical advisory and names it with its advisory', () => {
    const outcome = readAuditReport(report({ 'slow-parser': 'high', 'old-util': 'moderate' }));
    expect(outcome).toMatchObject({ kind: 'checked', dependencies: 120, counts: { high: 1, moderate: 1, critical: 0 } });
    if (outcome.kind !== 'checked') throw new Error('unreachable');
    expect(outcome.blocking).toEqual([
      {
        name: 'slow-parser',
        severity: 'high',
        range: '<2.0.0',
        fixAvailable: true,
        via: ['slow-parser is slow on long input (https://github.com/advisories/GHSA-slow-parser)', 'through express'],
      },
    ]);
  });

  it('passes a report with only moderate advisories at the default level, blocks it at --level moderate', () => {
    const moderate = report({ 'old-util': 'moderate' });
    expect(readAuditReport(moderate)).toMatchObject({ kind: 'checked', blocking: [] });
    expect(readAuditReport(moderate, 'moderate')).toMatchObject({ kind: 'checked', blocking: [{ name: 'old-util' }] });
  });

  it('treats a registry without the advisory database as unchecked, never as a pass', () => {
    const refused = JSON.stringify({
      message: '405 Method Not Allowed - POST <registry>/-/npm/v1/security/advisories/bulk',
      statusCode: 405,
      body: '',
    });
    expect(readAuditReport(refused)).toEqual({ kind: 'unavailable', reason: expect.stringMatching(/HTTP 405/) });
    expect(readAuditReport('')).toMatchObject({ kind: 'unavailable' });
  });
});
