import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
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
  return { ...result, output: result.stdout + result.stderr };
}

describe('npm run lint', () => {
  it('passes on openapi.yaml', async () => {
    const result = await run(bin('redocly'), ['lint', '--format', 'summary']);
    expect(result.stdout + result.stderr).toMatch(/valid/i);
    expect(result.code).toBe(0);
  });

  // Each broken copy breaks exactly one rule the project relies on; lint must fail and name it.
  const broken: [string, string, (spec: Spec) => void][] = [
    ['a 201 without X-RateLimit-Remaining', 'response-contains-header', (s) => {
      delete s.paths['/pets'].post.responses['201'].headers['X-RateLimit-Remaining'];
    }],
    ['an operation without 429', 'rule/operation-declares-common-errors', (s) => {
      delete s.paths['/pets/{petId}'].get.responses['429'];
    }],
    ['an operation without 401', 'rule/operation-declares-common-errors', (s) => {
      delete s.paths['/pets'].get.responses['401'];
    }],
    ['an example that does not match its schema', 'no-invalid-media-type-examples', (s) => {
      s.components.examples.CreatePetResponseExample.value.name = 5;
    }],
    ['a 429 without Retry-After', 'response-contains-header', (s) => {
      delete s.components.responses.TooManyRequests.headers['Retry-After'];
    }],
    ['an untagged operation', 'rule/operation-tagged', (s) => {
      delete s.paths['/pets'].post.tags;
    }],
    ['an error response written inline', 'animal-store/error-response-by-reference', (s) => {
      s.paths['/pets'].get.responses['400'] = structuredClone(s.components.responses.BadRequest);
    }],
    ['a deprecated operation without x-sunset', 'animal-store/deprecated-operation-has-sunset', (s) => {
      delete s.paths['/pets/{petId}'].get['x-sunset'];
    }],
    ['a schema name that is not PascalCase', 'rule/schema-names-pascal-case', (s) => {
      s.components.schemas.pet_tag = { type: 'string', example: 'x' };
      s.components.schemas.Pet.properties.tag = { $ref: '#/components/schemas/pet_tag' };
    }],
  ];

  // Issue 13, finding 1: PetName's pattern of 1.0.0 was quadratic; lint must refuse it.
  it('fails on a copy with a pattern that backtracks super-linearly, naming the pattern and an attack string', async () => {
    const quadratic = '^[^\\u0000-\\u001F]*[^\\s\\u0000-\\u001F][^\\u0000-\\u001F]*$';
    const result = await lintMutated('quadratic-pattern', (s) => {
      s.components.schemas.PetName.pattern = quadratic;
    }, 'stylish');
    expect(result.code).toBe(1);
    expect(result.output).toContain('animal-store/pattern-is-linear');
    expect(result.output).toContain(`/${quadratic}/ can backtrack super-linearly (2nd degree polynomial)`);
    expect(result.output).toMatch(/matching it against '.+'\.repeat\(\d+\)/);
  });

  it('fails on a copy with an exponential pattern', async () => {
    const result = await lintMutated('exponential-pattern', (s) => {
      s.components.schemas.Error.properties.message.pattern = '^(a|a)*$';
    }, 'stylish');
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/\/\^\(a\|a\)\*\$\/ can backtrack super-linearly \(exponential\)/);
  });

  it.each(broken)('fails on a copy with %s (%s)', async (name, rule, mutate) => {
    const result = await lintMutated(name.replaceAll(' ', '-'), mutate);
    expect(result.output).toContain(rule);
    expect(result.code).toBe(1);
  });
});
