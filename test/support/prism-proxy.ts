import { startPrism } from './prism-process.js';
import { SPEC_PATH } from '../../src/contract/load-spec.js';
import type { ContractTarget } from '../contract/cases.js';

/** A running `prism proxy` in front of a server. */
export interface PrismProxy {
  /**
   * Where clients send requests. Prism matches the contract's paths without the server URL's
   * `/v1` (it compares servers only when a request names one with `__server`), so this has no
   * `/v1`; Prism adds the upstream URL's `/v1` when it forwards.
   */
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Starts Prism's validation proxy (`prism proxy openapi.yaml <upstream>`) in front of
 * `upstreamBaseUrl` (with its `/v1`). Prism forwards requests unchanged and checks each response
 * against the contract (status, headers, body), reporting what breaks it in the
 * `sl-violations` header of the response.
 *
 * With `errors` (`--errors`), Prism also turns every violation into an error answer of its own:
 * an invalid request is refused by Prism (its own 422, or 401 without a key, or 404 off the
 * contract) without reaching the server, and an invalid response becomes Prism's 500. So the
 * suite runs twice: its cases that send only valid requests through `--errors`, where any
 * response violation turns into a wrong status; and every case without it, where the
 * deliberately invalid requests reach the server and {@link prismViolations} fails a case on
 * each response violation Prism reports.
 */
export async function startPrismProxy(
  upstreamBaseUrl: string,
  { errors = false, log = null }: { errors?: boolean; log?: ((line: string) => void) | null } = {},
): Promise<PrismProxy> {
  const prism = await startPrism(['proxy', SPEC_PATH, upstreamBaseUrl, ...(errors ? ['--errors'] : [])], { log });
  return { baseUrl: `http://127.0.0.1:${prism.port}`, close: () => prism.stop() };
}

interface PrismViolation {
  location?: (string | number)[];
  severity?: string;
  message?: string;
}

/**
 * What Prism found wrong with a response, from its `sl-violations` header: every violation
 * located in the response, whatever its severity. Violations of the request are left out: the
 * suite sends invalid requests on purpose, and what matters is how the server answers them.
 */
function prismViolations(headers: Headers): string[] {
  const header = headers.get('sl-violations');
  if (header === null) return [];
  let violations: PrismViolation[];
  try {
    violations = JSON.parse(header) as PrismViolation[];
  } catch {
    // Prism cuts an over-long list and prefixes it ("Too many violations! …").
    return [`Prism reported violations it could not list in full: ${header.slice(0, 300)}`];
  }
  return violations
    .filter((v) => v.location?.[0] === 'response')
    .map((v) => `Prism (${v.severity ?? 'unknown severity'}) at ${(v.location ?? []).join('.')}: ${v.message ?? 'violation'}`);
}

/** `target` reached through a Prism validation proxy: same keys, Prism's base URL, Prism's reports. */
export function throughPrism(target: ContractTarget, proxy: PrismProxy): ContractTarget {
  return { baseUrl: proxy.baseUrl, headersFor: (scenario) => target.headersFor(scenario), reportedViolations: prismViolations };
}
