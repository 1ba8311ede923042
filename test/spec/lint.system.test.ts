import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import type { OpenApiDocument } from '../../src/contract/load-spec.js';
import { requestArbitraries } from '../property/arbitraries-from-spec.js';
import { ADDED, withAddedOperation } from '../support/added-operation.js';
import { codeBlocks, guideSection, placeOf } from '../support/guide.js';
import { bin, ROOT, run } from '../support/run.js';

const workDir = mkdtempSync(join(tmpdir(), 'animal-store-lint-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

// A parsed YAML document, changed freely by each mutation.
type Spec = Record<string, any>;

/** Lints a copy of the contract changed by `mutate`, with the project's redocly.yaml. */
async function lintMutated(name: string, mutate: (spec: Spec) => void, format = 'summary') {
  const spec = parse(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8')) as Spec;
  mutate(spec);
  const path = join(workDir, `${name}.yaml`);
  writeFileSync(path, stringify(spec));
  const result = await run(bin('redocly'), ['lint', path, '--config', join(ROOT, 'redocly.yaml'), '--format', format]);
  return { ...result, output: result.stdout + result.stderr, spec };
}

describe('npm run lint', () => {
  it('passes on openapi.yaml', async () => {
    const result = await run(bin('redocly'), ['lint', '--format', 'summary']);
    expect(result.stdout + result.stderr).toMatch(/Your API description is valid/);
    expect(result.code, result.stdout + result.stderr).toBe(0);
  });

  // Each broken copy breaks exactly one rule the project relies on; lint must fail and name it.
  const broken: [string, string, (spec: Spec) => void][] = [
    [
      'a 201 without X-RateLimit-Remaining',
      'response-contains-header',
      (s) => {
        delete s.paths['/pets'].post.responses['201'].headers['X-RateLimit-Remaining'];
      },
    ],
    [
      'an operation without 429',
      'rule/operation-declares-common-errors',
      (s) => {
        delete s.paths['/pets/{petId}'].get.responses['429'];
      },
    ],
    [
      'an example that does not match its schema',
      'no-invalid-media-type-examples',
      (s) => {
        s.components.examples.CreatePetResponseExample.value.name = 5;
      },
    ],
    [
      'a 429 without Retry-After',
      'response-contains-header',
      (s) => {
        delete s.components.responses.TooManyRequests.headers['Retry-After'];
      },
    ],
    [
      'an untagged operation',
      'rule/operation-tagged',
      (s) => {
        delete s.paths['/pets'].post.tags;
      },
    ],
    [
      'an error response written inline',
      'animal-store/error-response-by-reference',
      (s) => {
        s.paths['/pets'].get.responses['400'] = structuredClone(s.components.responses.BadRequest);
      },
    ],
    [
      'an integer header without format int64',
      'animal-store/integer-headers-int64',
      (s) => {
        delete s.components.headers['X-RateLimit-Reset'].schema.format;
      },
    ],
    [
      'an integer header of format int32',
      'animal-store/integer-headers-int64',
      (s) => {
        s.components.headers['Retry-After'].schema.format = 'int32';
      },
    ],
    [
      'a deprecated operation without x-sunset',
      'animal-store/deprecated-operation-has-sunset',
      (s) => {
        delete s.paths['/pets/{petId}'].get['x-sunset'];
      },
    ],
    [
      'an operation that is not deprecated answering with the deprecation headers',
      'animal-store/deprecation-headers-only-when-deprecated',
      (s) => {
        s.paths['/pets'].get.responses['400'] = { $ref: '#/components/responses/GetPetNotFound' };
      },
    ],
    [
      'a schema name that is not PascalCase',
      'rule/schema-names-pascal-case',
      (s) => {
        s.components.schemas.probe_lint_tag = { type: 'string', example: 'x' };
        s.components.schemas.Pet.properties.probeLintTag = { $ref: '#/components/schemas/probe_lint_tag' };
      },
    ],
  ];

  // docs/designers.md, "Add an operation that reads", followed from its own text: each YAML block
  // says where it goes. The operation alone fails on its 400, as the guide says; with the example
  // the guide adds, lint passes.
  it("passes on the guide's operation that reads once its 400 example is added, and names the example missing before", async () => {
    const blocks = codeBlocks(guideSection('Add an operation that reads'), 'yaml').map((block) => ({
      at: placeOf(block),
      entries: Object.entries(parse(block) as Spec),
    }));
    expect(blocks.length, 'YAML blocks of the section: the operation, then what its 400 needs').toBeGreaterThan(1);
    expect(blocks.map((block) => block.at)).not.toContain(undefined);
    // Each block's keys join those already there, at every depth.
    const merge = (node: Spec, entries: [string, unknown][]) => {
      for (const [key, value] of entries) {
        if (value && typeof value === 'object' && node[key] && typeof node[key] === 'object') merge(node[key], Object.entries(value));
        else node[key] = value;
      }
    };
    const place = (s: Spec, upTo: number) => {
      for (const { at, entries } of blocks.slice(0, upTo))
        merge(
          at!.reduce<Spec>((parent, key) => (parent[key] ??= {}), s),
          entries,
        );
    };
    const [operationId] = Object.values(blocks[0]!.entries[0]![1] as Spec).map((op: Spec) => op.operationId as string);
    const alone = await lintMutated('reading-operation-alone', (s) => place(s, 1), 'stylish');
    expect(alone.output).toContain(`${operationId} declares 400 but none of its examples names only inputs ${operationId} has`);
    expect(alone.code).toBe(1);
    const guided = await lintMutated('reading-operation', (s) => place(s, blocks.length));
    expect(guided.output, guided.output).toMatch(/Your API description is valid/);
    expect(guided.code).toBe(0);
  });

  // PetName's pattern of 1.0.0 was quadratic; lint must refuse it.
  it('fails on a copy with a pattern that backtracks super-linearly, naming the pattern and an attack string', async () => {
    const quadratic = '^[^\\u0000-\\u001F]*[^\\s\\u0000-\\u001F][^\\u0000-\\u001F]*$';
    const result = await lintMutated(
      'quadratic-pattern',
      (s) => {
        s.components.schemas.PetName.pattern = quadratic;
      },
      'stylish',
    );
    expect(result.code).toBe(1);
    expect(result.output).toContain('animal-store/pattern-is-linear');
    expect(result.output).toContain(`/${quadratic}/ can backtrack super-linearly (2nd degree polynomial)`);
    expect(result.output).toMatch(/matching it against '.+'\.repeat\(\d+\)/);
  });

  it('fails on a copy with an exponential pattern', async () => {
    const result = await lintMutated(
      'exponential-pattern',
      (s) => {
        s.components.schemas.Error.properties.message.pattern = '^(a|a)*$';
      },
      'stylish',
    );
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/\/\^\(a\|a\)\*\$\/ can backtrack super-linearly \(exponential\)/);
  });

  // The property tests generate requests from these schemas; what their generator cannot
  // generate is skipped there, and never refused here. The fields and schema are added under
  // names of their own, so that a field or schema of the designer's (tags, say) is left as it is.
  it('passes request schemas with any JSON Schema keyword (contains, patternProperties, a schema inside itself)', async () => {
    const result = await lintMutated('any-keyword', (s) => {
      const fields = s.components.schemas.NewPet.properties;
      fields.probeLintList = { type: 'array', items: { type: 'string' }, contains: { const: 'new' }, maxItems: 10 };
      fields.probeLintMap = { type: 'object', patternProperties: { '^x-': { type: 'integer' } } };
      s.components.schemas.ProbeLintTree = {
        type: 'object',
        properties: { children: { type: 'array', items: { $ref: '#/components/schemas/ProbeLintTree' } } },
      };
      fields.probeLintTree = { $ref: '#/components/schemas/ProbeLintTree' };
    });
    expect(result.output).toMatch(/valid/i);
    expect(result.code).toBe(0);
  });

  // animal-store/response-examples-consistent: every example the mock can send agrees with
  // itself and with its operation. One broken copy per check, each known by its message.
  const inconsistent: [string, string, (spec: Spec) => void][] = [
    [
      'an Error example whose status is not its response code',
      'PetNotFoundExample (404): the Error body says status 410, the response is 404',
      (s) => {
        s.components.examples.PetNotFoundExample.value.status = 410;
      },
    ],
    [
      'an Error example whose code goes with another status',
      'InternalErrorExample (500): the error code service_unavailable goes with status 503, not 500',
      (s) => {
        s.components.examples.InternalErrorExample.value.code = 'service_unavailable';
      },
    ],
    [
      'a 400 example without details',
      'InvalidQueryExample (400): a 400 Error body names each offending field in details',
      (s) => {
        delete s.components.examples.InvalidQueryExample.value.details;
      },
    ],
    [
      'a 429 example with requests remaining',
      'RateLimitedExample (429): a 429 has X-RateLimit-Remaining 0, not 59',
      (s) => {
        delete s.components.examples.RateLimitedExample['x-headers']['X-RateLimit-Remaining'];
      },
    ],
    [
      'a 429 example whose Retry-After is not the wait its message states',
      'KeyTemporarilyBannedExample (429): the message says 600 more seconds but Retry-After is 30',
      (s) => {
        s.components.examples.KeyTemporarilyBannedExample['x-headers']['Retry-After'] = 30;
      },
    ],
    [
      'a 503 example whose Retry-After is not the wait its message states',
      'ServiceUnavailableExample (503): the message says 5 seconds but Retry-After is 30',
      (s) => {
        delete s.components.examples.ServiceUnavailableExample['x-headers'];
      },
    ],
    [
      'a rate_limited example whose limit is not X-RateLimit-Limit',
      'RateLimitedExample (429): the message states a limit of 60 but X-RateLimit-Limit is 300',
      (s) => {
        s.components.examples.RateLimitedExample['x-headers']['X-RateLimit-Limit'] = 300;
      },
    ],
    [
      'more requests remaining than the limit',
      'X-RateLimit-Remaining 61 is more than X-RateLimit-Limit 60',
      (s) => {
        s.components.headers['X-RateLimit-Remaining'].example = 61;
      },
    ],
    [
      'x-headers naming a header its response does not declare',
      'RateLimitedExample: x-headers gives X-RateLimit-Remainder, which the 429 response does not declare',
      (s) => {
        s.components.examples.RateLimitedExample['x-headers']['X-RateLimit-Remainder'] = 0;
      },
    ],
    [
      'an operation none of whose 400 examples fits it',
      'listPets declares 400 but none of its examples names only inputs listPets has',
      (s) => {
        s.components.examples.InvalidQueryExample.value.details[0].field = 'query.colour';
      },
    ],
  ];

  it.each(inconsistent)('fails on a copy with %s (animal-store/response-examples-consistent)', async (name, message, mutate) => {
    const result = await lintMutated(name.replaceAll(' ', '-'), mutate, 'stylish');
    expect(result.output).toContain('animal-store/response-examples-consistent');
    expect(result.output).toContain(message);
    expect(result.code).toBe(1);
  });

  // What the property tests require of an operation's declared responses (a refusal the service
  // gives any operation of its kind), lint says first, in the words the property tests use.
  const undeclaredRefusals: [string, string, string, (spec: Spec) => void][] = [
    [
      'an added operation without 400',
      ADDED.operationId,
      `${ADDED.operationId} does not declare 400, which the contract's error table gives for invalid requests`,
      (s) => {
        s.paths = withAddedOperation(s as OpenApiDocument).paths;
        delete s.paths[ADDED.path][ADDED.method].responses['400'];
      },
    ],
    [
      'an operation that needs a key without 401',
      'listPets',
      "listPets does not declare 401, which the contract's error table gives for requests without a valid key",
      (s) => {
        delete s.paths['/pets'].get.responses['401'];
      },
    ],
    [
      'an operation that takes a body without 415',
      'createPet',
      "createPet does not declare 415, which the contract's error table gives for bodies of another media type",
      (s) => {
        delete s.paths['/pets'].post.responses['415'];
      },
    ],
  ];

  it.each(undeclaredRefusals)(
    'fails on a copy with %s (animal-store/operation-declares-refusals), as the property tests would',
    async (name, operationId, message, mutate) => {
      const result = await lintMutated(name.replaceAll(' ', '-'), mutate, 'stylish');
      expect(result.output).toContain('animal-store/operation-declares-refusals');
      expect(result.output).toContain(message);
      expect(result.code).toBe(1);
      // The property tests' generator stops on the same copy with the same sentence.
      const arbitraries = requestArbitraries(result.spec as OpenApiDocument).get(operationId)!;
      if (arbitraries.unsupported !== undefined) throw new Error(arbitraries.unsupported);
      expect(() => fc.sample(arbitraries.invalid, { numRuns: 200, seed: 1 })).toThrow(message);
    },
  );

  it.each(broken)('fails on a copy with %s (%s)', async (name, rule, mutate) => {
    const result = await lintMutated(name.replaceAll(' ', '-'), mutate);
    expect(result.output).toContain(rule);
    expect(result.code).toBe(1);
  });
});
