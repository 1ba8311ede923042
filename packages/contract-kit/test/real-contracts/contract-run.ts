import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { freePort, inProject, startScript, stop, type Running } from '../adoption/project.js';
import { parse } from 'yaml';

/** One step of a contract's run: whether it went as an adopter expects, and what it printed when it did not. */
interface Step {
  ok: boolean;
  ms: number;
  /** What went wrong, in a few lines (the failing cases of conform, a compiler's first errors). */
  detail?: string;
}

/** A contract's run: refused at the start by openapi-typescript or Prism, or each step of the kit. */
export interface ContractRun {
  contract: string;
  paths: number;
  accepted: { ok: boolean; by?: string; detail?: string };
  steps: Partial<Record<StepName, Step>>;
  /** What the server and the mock named at start: the operations they cannot serve, and why. */
  named: string[];
  green: boolean;
}

export const STEPS = ['init', 'generate', 'typecheck', 'start', 'errors', 'mock', 'valid'] as const;
type StepName = (typeof STEPS)[number];

const last = (text: string, lines = 12) => text.trim().split('\n').slice(-lines).join('\n');

/** The failing cases of a conform run, each on one line with the first lines of why. */
function failures(output: string): string[] {
  const lines = output.split('\n');
  return lines.flatMap((line, i) => {
    if (!line.startsWith('FAIL  ')) return [];
    const why = lines.slice(i + 1, i + 4).filter((next) => next.startsWith('      '));
    return [`${line.slice(6)}: ${why.map((next) => next.trim()).join(' ')}`];
  });
}

/**
 * A conform failure that is the contract's and not the kit's: an error status the operation does
 * not declare (the kit answers it in a shape of its own, as the README says), or an operation the
 * server or the mock named at start as one it cannot serve.
 */
function excused(failure: string, said: string): boolean {
  if (/status \d{3} is not declared|declares no \d{3}/.test(failure)) return true;
  const operation = failure.split(':')[0]!.trim();
  return operation.length > 0 && new RegExp(`(^|[\\s;:(])${operation.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([\\s;:(]|$)`, 'm').test(said);
}

/** The warnings a started server or mock printed before it listened: what it cannot serve. */
function warningsOf(running: Running): string[] {
  return running
    .output()
    .split('\n')
    .filter((line) =>
      / answer 501 | declare no success answer|no value its schema takes|left out|rewritten|dropped|in their stead/.test(line),
    );
}

async function timed(run: () => Promise<Omit<Step, 'ms'>>): Promise<Step> {
  const start = performance.now();
  const step = await run();
  return { ...step, ms: Math.round(performance.now() - start) };
}

/**
 * Makes the project's verifying functions take any credential, with every scope asked; the
 * credentials to give conform, one per scheme (user:password for HTTP Basic).
 */
function acceptAnyCredential(project: string, contract: Contract): string[] {
  const file = join(project, 'src/security.ts');
  const source = readFileSync(file, 'utf8');
  writeFileSync(file, source.replaceAll(': () => undefined,', ': (_c, { requiredScopes }) => ({ caller: "x", scopes: requiredScopes }),'));
  return Object.entries(contract.components?.securitySchemes ?? {}).map(([name, scheme]) =>
    scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'basic' ? `${name}=x:y` : `${name}=x`,
  );
}

interface Contract {
  paths?: object;
  components?: { securitySchemes?: Record<string, { type?: string; scheme?: string }> };
}

/**
 * Runs one contract as an adopter would, in `work`/`name`: its own folder, the base install's
 * node_modules linked in. Accepted when openapi-typescript and (stock) Prism take it; then init,
 * generate, typecheck, npm start, conform's error cases against the server (every security
 * scheme taking any credential), npm run mock, and conform's valid requests against the mock.
 */
export async function runContract(file: string, name: string, work: string, base: string): Promise<ContractRun> {
  const project = join(work, name);
  rmSync(project, { recursive: true, force: true });
  mkdirSync(project, { recursive: true });
  const spec = `openapi${extname(file)}`;
  cpSync(file, join(project, spec));
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify(
      // Stock Prism, to see whether it takes the contract (init leaves a script it did not write).
      {
        name: 'adopter',
        version: '1.0.0',
        private: true,
        scripts: { prism: 'exec prism mock "$PRISM_SPEC" -p "$PRISM_PORT" -h 127.0.0.1' },
      },
      null,
      2,
    ),
  );
  symlinkSync(join(base, 'node_modules'), join(project, 'node_modules'));
  const contract = parse(readFileSync(file, 'utf8')) as Contract;
  const run: ContractRun = {
    contract: file,
    paths: Object.keys(contract.paths ?? {}).length,
    accepted: { ok: false },
    steps: {},
    named: [],
    green: false,
  };

  const types = await inProject(project, 'npx', ['openapi-typescript', spec, '-o', 'openapi-typescript.d.ts']);
  if (types.code !== 0) return { ...run, accepted: { ok: false, by: 'openapi-typescript', detail: last(types.output, 4) } };
  const prismPort = await freePort();
  try {
    await stop(await startScript(project, 'prism', [], { PRISM_SPEC: spec, PRISM_PORT: String(prismPort) }, /Prism is listening/));
  } catch (error) {
    return { ...run, accepted: { ok: false, by: 'Prism', detail: last(String(error), 4) } };
  }
  run.accepted = { ok: true };

  const command = async (step: StepName, program: string, args: string[]) => {
    run.steps[step] = await timed(async () => {
      const outcome = await inProject(project, program, args);
      return outcome.code === 0 ? { ok: true } : { ok: false, detail: last(outcome.output) };
    });
    return run.steps[step].ok;
  };
  if (!(await command('init', 'npx', ['contract-kit', 'init', '--spec', spec]))) return run;
  if (!(await command('generate', 'npm', ['run', '-s', 'generate']))) return run;
  const credentials = acceptAnyCredential(project, contract);
  if (!(await command('typecheck', 'npm', ['run', '-s', 'typecheck']))) return run;

  const conform = async (step: StepName, url: string, kinds: string) =>
    (run.steps[step] = await timed(async () => {
      const outcome = await inProject(project, 'npx', [
        'contract-kit',
        'conform',
        '--spec',
        spec,
        '--url',
        url,
        '--kinds',
        kinds,
        ...credentials.flatMap((credential) => ['--credential', credential]),
      ]);
      const failed = failures(outcome.output).filter((failure) => !excused(failure, run.named.join('\n')));
      if (outcome.code !== 0 && failures(outcome.output).length === 0) return { ok: false, detail: last(outcome.output) };
      return failed.length === 0 ? { ok: true } : { ok: false, detail: failed.slice(0, 8).join('\n') };
    }));

  /** Starts `npm run SCRIPT` (step `step`), runs conform's `kinds` against it, and stops it; false when it did not start. */
  const against = async (step: StepName, script: 'start' | 'mock', kinds: StepName) => {
    let port = 0;
    let running: Running | undefined;
    run.steps[step] = await timed(async () => {
      // A free port may be taken by another job's Prism before it listens: a second port then.
      for (let attempt = 1; ; attempt++) {
        port = await freePort();
        try {
          running = await startScript(
            project,
            script,
            script === 'mock' ? ['--port', String(port)] : [],
            { PORT: String(port), HOST: '127.0.0.1' },
            /[Ll]istening on /,
          );
          return { ok: true };
        } catch (error) {
          if (attempt === 1 && String(error).includes('EADDRINUSE')) continue;
          return { ok: false, detail: last(String(error)) };
        }
      }
    });
    if (running === undefined) return false;
    try {
      run.named.push(...warningsOf(running));
      await conform(kinds, `http://127.0.0.1:${port}`, kinds === 'errors' ? 'credentials,invalid,media-type,routing' : 'valid');
    } finally {
      await stop(running);
    }
    return true;
  };
  if (await against('start', 'start', 'errors')) await against('mock', 'mock', 'valid');
  run.green = STEPS.every((step) => run.steps[step]?.ok === true);
  return run;
}
