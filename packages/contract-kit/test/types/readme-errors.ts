// The README's errors function, checked by `npm run typecheck` (never run): the README shows code that compiles.
import type { ProblemFormatter } from 'contract-kit';

export const errors: ProblemFormatter = (problem, { contentType }) => ({
  contentType,
  body: { error: { kind: problem.code, text: problem.message, fields: problem.details.map((d) => d.field) } },
});
