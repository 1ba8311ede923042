/**
 * contract-kit/testing: the conformance suite of any contract, made from the contract alone, and
 * the checker it judges answers with. Run it against a server (`contract-kit conform`, or from a
 * test runner with conformanceCases and runConformance).
 */
export { ContractChecker, isJsonMediaType, type CheckerOptions, type ObservedResponse } from './checker.js';
export {
  conformanceCases,
  runConformance,
  ConformanceViolation,
  type CaseKind,
  type CaseOutcome,
  type ConformanceCase,
  type ConformanceTarget,
} from './conformance.js';
export { propertyCases, type ValueOverrides } from './property.js';
export type { Credential, CredentialSource } from './requests.js';
export { ContractSchemas, type Refusal } from './schemas.js';
export { readingsOf, SchemaValues, toJsonText, UnsupportedSchemaError, wireEdits, type Broken } from './values.js';
