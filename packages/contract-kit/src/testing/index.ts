/**
 * contract-kit/testing: the conformance suite of any contract, made from the contract alone, and
 * the checker it judges answers with. Run it against a server (`contract-kit conform`, or from a
 * test runner with conformanceCases and runConformance).
 */
export { ContractChecker, isJsonMediaType, type CheckerOptions, type ObservedResponse } from './checker.js';
export { ConformanceViolation, readAnswerBody, type ConformanceTarget } from './answers.js';
export { conformanceCases, runConformance, type CaseKind, type CaseOutcome, type ConformanceCase } from './conformance.js';
export { propertyCases, type ValueOverrides } from './property.js';
export type { Credential, CredentialSource } from './credentials.js';
export { ContractSchemas, type Refusal } from './schemas.js';
export { wireEdits } from './value-edits.js';
export { readingsOf, SchemaValues, toJsonText, UnsupportedSchemaError, type Broken } from './values.js';
