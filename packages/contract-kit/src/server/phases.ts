import type { RequestHandler } from 'express';
import type { Operation } from '../contract/operations.js';
import type { Steps } from './steps.js';

/**
 * Where an application's steps run among the kit's, each phase after the kit's step it names:
 * `afterAuthentication` once the caller is found and before a request without valid credentials
 * is refused (a rate limit that counts such requests too), `beforeValidation` once the body is
 * read, `beforeHandler` once the request is valid.
 */
export const PHASES = { afterAuthentication: 'authenticate', beforeValidation: 'body', beforeHandler: 'validate' } as const;
export type Phase = keyof typeof PHASES;

/**
 * An application's steps of one phase for an operation, by name, in the order they run (Express
 * middleware). One that is undefined is not run for that operation, nor listed.
 */
export type NamedSteps = Readonly<Record<string, RequestHandler | undefined>>;

/** The application's steps of each phase, for each operation; the kit runs the phases in its order, whatever order they are given in. */
export type PhaseSteps = { readonly [P in Phase]?: (op: Operation) => NamedSteps };

/** One step of an operation, as ContractServer.stepsOf lists it: its name, and the kit's or the application's (and in which phase). */
export type ListedStep = { name: keyof Steps; by: 'kit' } | { name: string; by: 'application'; phase: Phase };

/** The kit's steps, in the order they run. */
const KIT_ORDER: readonly (keyof Steps)[] = [
  'deprecation',
  'authenticate',
  'authorize',
  'sunset',
  'parameters',
  'body',
  'validate',
  'handler',
];

/**
 * An operation's steps in the order they run: the kit's, each followed by the application's of
 * the phase that comes after it.
 * @throws Error for an unknown phase, or a step named by an integer (an object lists those first, not in the order given)
 */
export function orderedSteps(op: Operation, kit: Steps, phases: PhaseSteps): { listed: ListedStep[]; run: RequestHandler[] } {
  for (const phase of Object.keys(phases))
    if (!(phase in PHASES)) throw new Error(`steps: ${phase} is no phase (${Object.keys(PHASES).join(', ')})`);
  const listed: ListedStep[] = [];
  const run: RequestHandler[] = [];
  for (const name of KIT_ORDER) {
    listed.push({ name, by: 'kit' });
    run.push(kit[name]);
    for (const phase of Object.keys(PHASES) as Phase[]) {
      if (PHASES[phase] !== name) continue;
      for (const [stepName, step] of Object.entries(phases[phase]?.(op) ?? {})) {
        if (/^\d+$/.test(stepName)) throw new Error(`steps.${phase} of ${op.name}: name the step ${stepName} by a word, not a number`);
        if (step === undefined) continue;
        listed.push({ name: stepName, by: 'application', phase });
        run.push(step);
      }
    }
  }
  return { listed, run };
}
