import { describe, it } from 'vitest';
import { loadSpec, type OpenApiDocument } from '../../src/contract/load-spec.js';
import { contractCases, type ContractCase, type ContractTarget } from './cases.js';
import { ContractChecker } from './conformance.js';

/**
 * Registers the contract suite against a target. `getTarget` is called when each case runs, so
 * the target may be started in a `beforeAll` of the calling file.
 */
export function defineContractSuite(
  label: string,
  getTarget: () => ContractTarget,
  {
    only = () => true,
    contract: doc = loadSpec(),
  }: {
    only?: (contractCase: ContractCase) => boolean;
    /** The contract the target serves at its baseUrl. @default openapi.yaml */
    contract?: OpenApiDocument;
  } = {},
): void {
  const checker = new ContractChecker(doc);
  describe(`contract suite against ${label}`, () => {
    for (const contractCase of contractCases(doc).filter(only)) {
      it(contractCase.name, () => contractCase.run(getTarget(), checker));
    }
  });
}
