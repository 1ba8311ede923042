import { loadSpec } from '../../src/contract/load-spec.js';
import { contractCases, ContractViolationError, type ContractCase, type ContractTarget } from './cases.js';
import type { ContractChecker } from './conformance.js';

/**
 * Runs every case of the suite (or those `only` keeps) against `target` and returns each case's failure message, or
 * null when it passed; any error other than a contract violation is thrown.
 */
export async function runContractCases(
  target: ContractTarget,
  checker: ContractChecker,
  only: (contractCase: ContractCase) => boolean = () => true,
): Promise<Map<string, string | null>> {
  const outcomes = new Map<string, string | null>();
  for (const c of contractCases(loadSpec()).filter(only)) {
    try {
      await c.run(target, checker);
      outcomes.set(c.name, null);
    } catch (error) {
      if (!(error instanceof ContractViolationError)) throw error;
      outcomes.set(c.name, error.message);
    }
  }
  return outcomes;
}
