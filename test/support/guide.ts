import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './run.js';

/** The text of a section of a guide (docs/designers.md by default), from its `## ` heading to the next. */
export function guideSection(heading: string, guide = 'docs/designers.md'): string {
  const text = readFileSync(join(ROOT, guide), 'utf8');
  const start = text.indexOf(`## ${heading}\n`);
  if (start < 0) throw new Error(`${guide} has no section "${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The code blocks of a language in a guide's text, each without its fences and indentation. */
export function codeBlocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp(`^( *)\`\`\`${language}\n([\\s\\S]*?)^\\1\`\`\``, 'gm'))].map(([, indent, body]) =>
    body!
      .split('\n')
      .map((line) => line.slice(indent!.length))
      .join('\n')
      .trim(),
  );
}

/**
 * Where a YAML block of a guide goes in openapi.yaml, from its first line (`# under
 * components/examples`): the keys of that place, or undefined for a block that does not say.
 */
export function placeOf(block: string): string[] | undefined {
  const under = /^# under (\S+)/.exec(block)?.[1];
  return under?.split('/');
}
