/**
 * Characters no name may hold, as PetName in openapi.yaml lists them: controls (`\p{Cc}`),
 * bidirectional controls, line and paragraph separators, and unpaired surrogates. Each can
 * rewrite what a terminal or a page shows around the name.
 */
const UNSAFE = /[\p{Cc}\u061C\u200E\u200F\u2028-\u202E\u2066-\u2069\p{Cs}]/gu;

/** Nothing a reader sees: Unicode's White_Space, Default_Ignorable_Code_Point and format characters, and U+2800 BRAILLE PATTERN BLANK. */
const INVISIBLE_ONLY = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cf}\u2800]*$/u;

/** Whether `text` holds a character that {@link UNSAFE} names (search ignores the g flag's lastIndex). */
export const hasUnsafeCharacter = (text: string): boolean => text.search(UNSAFE) !== -1;

/** Whether `text` shows nothing: empty, or only white space and invisible characters. */
export const isInvisible = (text: string): boolean => INVISIBLE_ONLY.test(text);

/**
 * `text` with every character {@link UNSAFE} names written as a `\uXXXX` escape, for a terminal:
 * ESC, OSC, BEL, CR or a newline in a stored name can then neither move the cursor nor forge a
 * line. A JSON text stays valid JSON of the same value.
 */
export function escapeUnsafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
