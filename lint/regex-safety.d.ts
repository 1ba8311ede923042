/** What {@link checkRegex} found for one regular expression. */
export interface RegexVerdict {
  safe: boolean;
  /** recheck's summary: "linear", "2nd degree polynomial", "exponential", or why it could not decide. */
  complexity: string;
  /** An attack string as a JavaScript expression, when recheck found one. */
  attack?: string;
}

export function checkRegex(source: string, flags?: string): RegexVerdict;
export function describeUnsafe(source: string, verdict: RegexVerdict): string;
