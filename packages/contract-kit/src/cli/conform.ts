import { resolve } from 'node:path';
import { loadContract } from '../contract/load-contract.js';
import { basePathsOf } from '../contract/servers.js';
import { securitySchemesOf } from '../server/security.js';
import { ContractChecker } from '../testing/checker.js';
import { conformanceCases, runConformance, type CaseKind } from '../testing/conformance.js';
import { propertyCases } from '../testing/property.js';
import type { Credential } from '../testing/credentials.js';
import { CommandError, parseCommand, UsageError } from './command-line.js';

const KINDS: readonly CaseKind[] = ['valid', 'credentials', 'invalid', 'media-type', 'routing', 'property'];

export const CONFORM_HELP = `Usage: contract-kit conform [--spec FILE] [--url URL] [--credential SCHEME=VALUE]... [--runs N [--seed N]] [--kinds LIST]

Checks a running server against the contract with a suite made from the contract alone, and
prints each case: for each operation, a valid request (its parameters and body from the
contract's examples, else made from its schemas) answered with a status it declares and in the
shape it declares; without credentials, 401; each parameter and a JSON body its schema refuses,
400; a body of a media type it does not declare, 415; and a path outside the contract (404) and a
method a path lacks (405, with Allow). A handler still the stub of generate is named as such.
With --runs N, for each operation also N generated valid requests (fast-check, values made from
the schemas) each answered as declared, and N generated invalid ones (a parameter or a JSON body
its schema refuses, a required parameter left out) each refused with 400; a failure is reported
with the request and the seed that replays it.
Exits 1 when a case fails; a case it has no credential or value for is skipped, saying why.

Options:
  --spec FILE                The contract (default openapi.yaml).
  --url URL                  The server (default http://127.0.0.1:3000); without a path, the
                             path of the contract's first server is added (/v1).
  --credential SCHEME=VALUE  A valid credential for a security scheme of the contract (an API
                             key, a token, or user:password for HTTP Basic); once per scheme.
  --runs N                   Generated requests per operation and kind (default 0: none).
  --seed N                   fast-check's seed, to replay a failure it reported.
  --kinds LIST               Only these kinds of case, comma-separated: ${KINDS.join(', ')}.
  -h, --help                 Show this help.
`;

/** `contract-kit conform`. */
export async function conform(args: string[], cwd = process.cwd()): Promise<number> {
  const parsed = parseCommand(CONFORM_HELP, args, {
    spec: { type: 'string', default: 'openapi.yaml' },
    url: { type: 'string', default: 'http://127.0.0.1:3000' },
    credential: { type: 'string', multiple: true, default: [] },
    kinds: { type: 'string', default: KINDS.join(',') },
    runs: { type: 'string', default: '0' },
    seed: { type: 'string' },
  });
  if (!parsed) return 0;
  const { spec, url, credential, kinds, runs, seed } = parsed.values;
  const count = (name: string, raw: string) => {
    if (!/^\d{1,7}$/.test(raw)) throw new UsageError(`--${name} must be a whole number, got "${raw}"`);
    return Number(raw);
  };
  const runCount = count('runs', runs);
  const seedNumber = seed === undefined ? undefined : count('seed', seed);
  const doc = await loadContract(resolve(cwd, spec), spec);
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new UsageError(`--url must be an http(s) URL, got "${url}"`);
  }
  const baseUrl = `${base.origin}${base.pathname === '/' ? basePathsOf(doc)[0]! : base.pathname.replace(/\/+$/, '')}`;

  const schemes = securitySchemesOf(doc);
  const credentials = new Map<string, Credential>();
  for (const entry of credential) {
    const at = entry.indexOf('=');
    const scheme = entry.slice(0, at);
    if (at < 1 || !schemes.has(scheme)) {
      throw new UsageError(
        `--credential must be SCHEME=VALUE with a scheme of the contract (${[...schemes.keys()].join(', ') || 'it has none'}), got "${entry}"`,
      );
    }
    const value = entry.slice(at + 1);
    const kind = schemes.get(scheme)!;
    if (kind.type === 'http' && kind.scheme === 'basic') {
      const colon = value.indexOf(':');
      if (colon < 0) throw new UsageError(`--credential ${scheme} is HTTP Basic: give user:password`);
      credentials.set(scheme, { username: value.slice(0, colon), password: value.slice(colon + 1) });
    } else credentials.set(scheme, value);
  }
  const chosen = kinds.split(',').map((k) => k.trim());
  const unknown = chosen.filter((k) => !(KINDS as readonly string[]).includes(k));
  if (unknown.length > 0) throw new UsageError(`--kinds takes ${KINDS.join(', ')}; not ${unknown.join(', ')}`);

  const cases = [...conformanceCases(doc), ...(runCount > 0 ? propertyCases(doc, { runs: runCount, seed: seedNumber }) : [])];
  let outcomes;
  try {
    outcomes = await runConformance(cases, { baseUrl, credential: (scheme) => credentials.get(scheme) }, new ContractChecker(doc), (c) =>
      chosen.includes(c.kind),
    );
  } catch (error) {
    throw new CommandError(
      `cannot reach ${baseUrl}: ${(error as Error).message}${(error as Error).cause ? ` (${String((error as { cause: unknown }).cause)})` : ''}`,
    );
  }
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const [name, outcome] of outcomes) {
    if ('passed' in outcome) {
      counts.passed++;
      process.stdout.write(`ok    ${name}\n`);
    } else if ('failed' in outcome) {
      counts.failed++;
      process.stdout.write(`FAIL  ${name}\n      ${outcome.failed.replaceAll('\n', '\n      ')}\n`);
    } else {
      counts.skipped++;
      process.stdout.write(`skip  ${name}: ${outcome.skipped}\n`);
    }
  }
  process.stdout.write(`\n${baseUrl} against ${spec}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  return counts.failed > 0 ? 1 : 0;
}
