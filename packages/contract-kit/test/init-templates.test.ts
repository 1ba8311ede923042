import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { init, templateFiles } from '../src/cli/init.js';

/** A contract in a folder, with a quote in its name, and a scheme whose name is no identifier. */
const SPEC = "api/shop's.yaml";
const CONTRACT = `openapi: 3.1.0
info: { title: Shop, version: 1.0.0 }
paths:
  /items:
    get:
      operationId: listItems
      security: [{ basicAuth: [] }, { api-key: [] }]
      responses: { '200': { description: The items } }
components:
  securitySchemes:
    basicAuth: { type: http, scheme: basic }
    api-key: { type: apiKey, in: cookie, name: shop_key }
`;

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'contract-kit-init-'));
  mkdirSync(join(dir, 'api'));
  writeFileSync(join(dir, SPEC), CONTRACT);
  writeFileSync(join(dir, 'package.json'), '{ "name": "shop" }\n');
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    expect(await init(['--spec', SPEC], dir)).toBe(0);
  } finally {
    vi.restoreAllMocks();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const written = (name: string) => readFileSync(join(dir, name), 'utf8');
const parsed = (name: string) => ts.createSourceFile(name, written(name), ts.ScriptTarget.ES2022, true);

/** Every node of `file` of the kind `kind`. */
function nodesOf<T extends ts.Node>(file: ts.SourceFile, is: (node: ts.Node) => node is T): T[] {
  const found: T[] = [];
  const visit = (node: ts.Node) => {
    if (is(node)) found.push(node);
    node.forEachChild(visit);
  };
  visit(file);
  return found;
}

describe('contract-kit init', () => {
  it('writes the files of templates/ and nothing else', () => {
    const files = readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
      .filter((name) => name !== 'package.json' && name !== SPEC);
    expect(files.sort()).toEqual(
      templateFiles()
        .map((t) => t.name)
        .sort(),
    );
    expect(files).toContain('.gitignore');
  });

  it('writes each template as it is, but for its placeholders', () => {
    for (const { template, name } of templateFiles()) {
      const text = readFileSync(template, 'utf8');
      if (!text.includes('__')) expect(written(name), name).toBe(text);
      else expect(written(name), name).not.toMatch(/__[A-Z]+__/);
    }
  });

  it('names the contract in src/app.ts as string literals that hold its path, whatever characters it has', () => {
    const strings = nodesOf(
      parsed('src/app.ts'),
      (n) => ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n),
    );
    const texts = strings.map((s) => s.text);
    expect(texts).toContain(`../${SPEC}`);
    expect(texts).toContain(SPEC);
    expect(texts).toContain(`${SPEC}: `);
    const diagnostics = ts.transpileModule(written('src/app.ts'), { reportDiagnostics: true }).diagnostics ?? [];
    expect(diagnostics.map((d) => d.messageText)).toEqual([]);
  });

  it('writes a verifying function per security scheme in src/security.ts, saying what it gets', () => {
    const file = parsed('src/security.ts');
    const [security] = nodesOf(file, ts.isObjectLiteralExpression);
    const entries = security!.properties.filter(ts.isPropertyAssignment);
    expect(entries.map((p) => (ts.isStringLiteral(p.name) || ts.isIdentifier(p.name) ? p.name.text : ''))).toEqual([
      'basicAuth',
      'api-key',
    ]);
    for (const entry of entries) expect(entry.initializer.getText()).toBe('() => undefined');
    expect(written('src/security.ts')).toContain('/** api-key: gets { key } (an API key in the cookie shop_key).');
    expect(written('src/security.ts')).toContain('/** basicAuth: gets { username, password } (HTTP Basic).');
  });
});
