// How a served earlier major tells its end: the start banner's note (src/contract/released-contracts.ts),
// and what check:breaking (contract-kit) refuses in the Animal Store's info that schedules it.
import { describe, expect, it } from 'vitest';
import { loadSpec, type OpenApiDocument } from '../../src/contract/load-spec.js';
import { sunsetNote } from '../../src/contract/released-contracts.js';
import { basePathsOf } from 'contract-kit';
import { scheduledEndProblems } from 'contract-kit/breaking';

const contract = loadSpec();
const withInfo = (info: Record<string, string>): OpenApiDocument => ({ ...contract, info: { ...contract.info, ...info } });
const at = (iso: string) => Date.parse(iso);

describe("the start banner's note on an earlier major's end", () => {
  it('says until when while the sunset is ahead, and that every operation answers 410 once it has passed', () => {
    const scheduled = withInfo({ 'x-deprecated-at': '2026-01-01', 'x-sunset': '2031-06-30' });
    expect(sunsetNote(scheduled, at('2031-06-29T23:59:59Z'))).toBe(', until 2031-06-30');
    for (const now of ['2031-06-30T00:00:00Z', '2032-01-01T00:00:00Z']) {
      expect(sunsetNote(scheduled, at(now))).toBe(
        ', past its sunset on 2031-06-30: every operation answers 410 Gone; delete the file to stop serving it',
      );
    }
    expect(sunsetNote(contract, at('2031-06-30T00:00:00Z'))).toBe('');
  });
});

describe('the end a contract schedules in its info', () => {
  it('needs the day it was announced beside its sunset, no later than it', () => {
    const today = new Date('2026-11-29T10:00:00Z');
    const base = basePathsOf(contract)[0];
    expect(scheduledEndProblems(withInfo({ 'x-sunset': '2031-06-30' }), 'contracts/released/1.x.yaml', today)).toEqual([
      `contracts/released/1.x.yaml: info.x-sunset 2031-06-30 without info.x-deprecated-at, so every answer under ${base} would say ` +
        "Deprecation: @0 (deprecated since 1 January 1970). Add beside it the day the end is announced: x-deprecated-at: '2026-11-29'",
    ]);
    expect(scheduledEndProblems(withInfo({ 'x-deprecated-at': '2032-01-01', 'x-sunset': '2031-06-30' }), 'old.yaml')).toEqual([
      'old.yaml: info.x-deprecated-at 2032-01-01 is after info.x-sunset 2031-06-30',
    ]);
    expect(scheduledEndProblems(withInfo({ 'x-deprecated-at': '2026-11-29', 'x-sunset': '2031-06-30' }), 'old.yaml')).toEqual([]);
    expect(scheduledEndProblems(contract, 'openapi.yaml')).toEqual([]);
  });
});
