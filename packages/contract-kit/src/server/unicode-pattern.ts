/** Characters a `\` may stand before in a pattern with ECMA-262's `u` flag (SyntaxCharacter and `/`). */
const SYNTAX = new Set('^$\\.*+?()[]{}|/');

/** Letters a `\` makes an escape of without the `u` flag; before any other letter (`\p`, `\e`) it stands for the letter itself. */
const ESCAPE_LETTERS = new Set('dDwWsSbBnrtfvcxuk');

/**
 * A pattern as Ajv compiles it (with the `u` flag), meaning what it means without the flag:
 * `^[a-z\-\:]+$` loses the backslash before characters that need none, which the `u` flag
 * refuses (`\:`, `\@`, `\-` outside a class), and `[^\p\{C\}]` the one before a letter that
 * is no escape without the flag (`\p` is `p` there). A pattern that compiles with it is returned
 * as it is; null for one that compiles with neither (it is left out: any value passes it).
 */
export function unicodePattern(pattern: string): string | null {
  try {
    new RegExp(pattern, 'u');
    return pattern;
  } catch {
    // Fixed below, if it is only identity escapes.
  }
  try {
    new RegExp(pattern);
  } catch {
    return null;
  }
  let fixed = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      const escape = SYNTAX.has(next) || ESCAPE_LETTERS.has(next) || /[0-9]/.test(next) || (inClass && next === '-');
      fixed += escape ? `\\${next}` : next;
      i++;
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    fixed += c;
  }
  try {
    new RegExp(fixed, 'u');
    return fixed;
  } catch {
    return null;
  }
}
