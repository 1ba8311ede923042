/**
 * Whether a regular expression can backtrack super-linearly, decided by recheck (an automaton
 * analysis, with fuzzing where the automaton does not apply). Used by the lint rule
 * `animal-store/pattern-is-linear` on every `pattern` of the contract and by
 * test/spec/regex-safety.test.ts on every regular expression in src/.
 * @see https://makenowjust-labs.github.io/recheck/
 */
import { checkSync } from 'recheck';

/**
 * Checks one expression. A JSON Schema `pattern` runs in Unicode mode (ECMA-262's `u` flag, as
 * ajv applies it), hence the default flags.
 * @returns `safe` when recheck proves the matching time linear in the input; otherwise the
 * complexity it found and, when it found one, an attack string as a JavaScript expression.
 */
export function checkRegex(source, flags = 'u') {
  // The same verdict however busy the machine: the fuzzer's seed is fixed (recheck's default), and
  // its limits are in steps of recheck's VM only (attackLimit, incubationLimit, seedingLimit),
  // none in wall-clock time, which a loaded machine stretches until a linear pattern looks slow.
  const result = checkSync(source, flags, {
    attackTimeout: null,
    incubationTimeout: null,
    seedingTimeout: null,
    recallTimeout: -1,
    timeout: null,
  });
  if (result.status === 'safe') return { safe: true, complexity: result.complexity.summary };
  if (result.status === 'vulnerable') {
    return { safe: false, complexity: result.complexity.summary, attack: result.attack.pattern };
  }
  // 'unknown': recheck could not decide (a feature it cannot analyse). Not proved
  // linear, so not accepted.
  return { safe: false, complexity: `not decided (${result.error?.kind ?? 'unknown'})` };
}

/** One sentence saying why an expression was refused, with the attack string when known. */
export function describeUnsafe(source, verdict) {
  const attack = verdict.attack ? `; matching it against ${verdict.attack} backtracks` : '';
  return `/${source}/ can backtrack super-linearly (${verdict.complexity})${attack}. Rewrite it so that every character can be matched in only one way.`;
}
