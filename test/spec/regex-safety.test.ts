import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { checkRegex, describeUnsafe } from '../../lint/regex-safety.js';
import { KEY_PATTERN } from '../../src/service/keys/key-format.js';
import { ROOT } from '../support/run.js';

// Every regular expression in src/ is proved linear by recheck, as `npm run lint` proves the
// contract's patterns (lint/regex-safety.js): a request must never cost more than linear time in
// what the client sent.

interface Found {
  where: string;
  source: string;
  flags: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Regular expression literals, and `new RegExp(…)`/`RegExp(…)` calls split by whether their arguments are literals. */
function regexesIn(file: string): { literal: Found[]; dynamic: string[] } {
  const text = readFileSync(file, 'utf8');
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const literal: Found[] = [];
  const dynamic: string[] = [];
  const where = (node: ts.Node) => `${relative(ROOT, file)}:${sourceFile.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node) => {
    if (ts.isRegularExpressionLiteral(node)) {
      const end = node.text.lastIndexOf('/');
      literal.push({ where: where(node), source: node.text.slice(1, end), flags: node.text.slice(end + 1) });
    } else if (
      (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'RegExp'
    ) {
      const [pattern, flags] = node.arguments ?? [];
      const isText = (arg: ts.Node | undefined) => arg === undefined || ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg);
      if (pattern && isText(pattern) && isText(flags)) {
        literal.push({
          where: where(node),
          source: (pattern as ts.StringLiteral).text,
          flags: (flags as ts.StringLiteral | undefined)?.text ?? '',
        });
      } else {
        dynamic.push(where(node).replace(/:\d+$/, ''));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return { literal, dynamic };
}

/**
 * The expressions src/ builds at run time, by file: each file's entry gives the expressions it
 * can build, so that they are checked like the literals. A new `new RegExp(variable)` fails the
 * test below until it is listed here.
 */
const DYNAMIC: Record<string, () => RegExp[]> = {
  'src/service/keys/key-format.ts': () => [KEY_PATTERN],
};

const files = sourceFiles(join(ROOT, 'src'));
const found = files.map(regexesIn);
const literals = found.flatMap((f) => f.literal);
const dynamicFiles = [...new Set(found.flatMap((f) => f.dynamic))];
const built = Object.entries(DYNAMIC).flatMap(([file, build]) =>
  build().map((re) => ({ where: `${file} (built)`, source: re.source, flags: re.flags })),
);

describe('regular expressions in src/', () => {
  it('are found (the scan works)', () => {
    expect(literals.length).toBeGreaterThan(10);
    expect(built.length).toBeGreaterThan(0);
  });

  it('are all built from literals, or listed with what they build', () => {
    expect(dynamicFiles.filter((file) => !(file in DYNAMIC))).toEqual([]);
  });

  it.each([...literals, ...built].map((r) => [`${r.where} /${r.source}/${r.flags}`, r] as const))('%s is linear', (_, r) => {
    const verdict = checkRegex(r.source, r.flags);
    expect(verdict.safe, describeUnsafe(r.source, verdict)).toBe(true);
  });
});

describe('the checker', () => {
  it('refuses the PetName pattern of 1.0.0, quadratic on a long name', () => {
    const verdict = checkRegex('^[^\\u0000-\\u001F]*[^\\s\\u0000-\\u001F][^\\u0000-\\u001F]*$');
    expect(verdict).toMatchObject({ safe: false, complexity: '2nd degree polynomial' });
    expect(verdict.attack).toMatch(/repeat/);
  });

  it('refuses an exponential pattern', () => {
    expect(checkRegex('^(a+)+$')).toMatchObject({ safe: false, complexity: 'exponential' });
  });
});
