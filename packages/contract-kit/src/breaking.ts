/**
 * contract-kit/breaking: two versions of a contract compared, each change rated by the
 * semantic-version bump it needs (what `contract-kit check-breaking` prints), for a project's own
 * release gate.
 */
export {
  CHANGE_CLASSES,
  compareContracts,
  majorOf,
  type ChangeClass,
  type ContractChange,
  type ContractComparison,
} from './cli/compare-contracts.js';
export { releasedContracts, scheduledEndProblems, type ReleasedContract } from './cli/released-contracts.js';
