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

  // Issue 16: the property tests generate every request from these schemas; what the generator
  // cannot generate is refused here, with where it is, rather than in a crashing test.
  describe('animal-store/schema-keyword-supported', () => {
    const TAGS = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 30 }, uniqueItems: true, maxItems: 10 };

    it('passes the tags field of issue 16 (uniqueItems, maxItems) on NewPet and Pet', async () => {
      const result = await lintMutated('tags', (s) => {
        s.components.schemas.NewPet.properties.tags = structuredClone(TAGS);
        s.components.schemas.Pet.properties.tags = structuredClone(TAGS);
      });
      expect(result.output).not.toContain('schema-keyword-supported');
      expect(result.code).toBe(0);
    });

    it('fails on a request schema with a keyword the generator does not know, naming it with its line and JSON pointer', async () => {
      const result = await lintMutated('tags-contains', (s) => {
        s.components.schemas.NewPet.properties.tags = { ...structuredClone(TAGS), contains: { const: 'new' } };
      }, 'codeframe');
      expect(result.code).toBe(1);
      expect(result.output).toContain('Error was generated by the animal-store/schema-keyword-supported rule.');
      expect(result.output).toContain('Schema keyword "contains" is not supported by the property-test generator (test/property/schema-arbitraries.ts).');
      expect(result.output).toMatch(/tags-contains\.yaml:\d+:\d+ at #\/components\/schemas\/NewPet\/properties\/tags\/contains\n/);
      expect(result.output).toContain('At #/components/schemas/NewPet/properties/tags/contains.');
    });

    it('fails on nullable (with what to write instead), an unknown format and a recursive schema, in parameters as in bodies', async () => {
      const result = await lintMutated('unsupported-schemas', (s) => {
        s.components.parameters.Cursor.schema.nullable = true;
        s.components.schemas.NewPet.properties.homepage = { type: 'string', format: 'iri' };
        s.components.schemas.Family = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Family' } } } };
        s.components.schemas.NewPet.properties.family = { $ref: '#/components/schemas/Family' };
      }, 'codeframe');
      expect(result.code).toBe(1);
      expect(result.output).toMatch(/at #\/components\/parameters\/Cursor\/schema\/nullable\n\nSchema keyword "nullable" is not supported .*write type: \[<type>, 'null'\] instead/);
      expect(result.output).toMatch(/at #\/components\/schemas\/NewPet\/properties\/homepage\/format\n\nFormat "iri" is not one the property-test generator makes values for/);
      expect(result.output).toMatch(
        /at #\/components\/schemas\/Family\/properties\/children\/items\/\$ref\n\n\$ref "#\/components\/schemas\/Family" leads back into a schema it is inside/,
      );
    });

    it('leaves response schemas alone: only requests are generated', async () => {
      const result = await lintMutated('response-contains', (s) => {
        s.components.schemas.Error.properties.details.contains = { type: 'object' };
      });
      expect(result.output).not.toContain('schema-keyword-supported');
      expect(result.code).toBe(0);
    });
  });

  it.each(broken)('fails on a copy with %s (%s)', async (name, rule, mutate) => {
    const result = await lintMutated(name.replaceAll(' ', '-'), mutate);
    expect(result.output).toContain(rule);
    expect(result.code).toBe(1);
  });
});
