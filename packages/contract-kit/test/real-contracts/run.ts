/**
 * contract-kit on public contracts, as teams adopting it would meet it: the packed kit installed
 * once (the dependencies `init` writes), then for each contract of a sample drawn from a folder of
 * OpenAPI 3.x contracts (a public directory's, kept out of this repository) the steps of
 * contract-run.ts, one line of JSON per contract, and a summary: the count at each step and every
 * contract that did not end green, with why. Long (about 15 s per contract on two cores):
 *
 *   npm run real-contracts -- --dir DIR [--sample 240] [--seed 20261129] [--max-paths 300] [--jobs 3] [--out FILE]
 *   npm run real-contracts -- --dir DIR --only TEXT,...    (the contracts whose path holds one of them)
 *
 * A summary of an earlier run: npm run real-contracts -- --report FILE.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { inProject } from '../adoption/project.js';
import { runContract, STEPS, type ContractRun } from './contract-run.js';

const HERE = import.meta.dirname;
const ROOT = resolve(HERE, '../../../..');
const FIXTURE = resolve(HERE, '../fixtures/orders-3.1.yaml');

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    sample: { type: 'string', default: '240' },
    seed: { type: 'string', default: '20261129' },
    'max-paths': { type: 'string', default: '300' },
    jobs: { type: 'string', default: '3' },
    work: { type: 'string', default: join(ROOT, '..', 'real-contracts') },
    out: { type: 'string' },
    report: { type: 'string' },
    only: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

/** Contracts under `dir` (*.json, *.yaml, *.yml) that say openapi: 3.x, with 1 to `maxPaths` paths, sorted by path. */
function contractsUnder(dir: string, maxPaths: number): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(json|ya?ml)$/.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    try {
      const text = readFileSync(file, 'utf8');
      const doc = (file.endsWith('.json') ? JSON.parse(text) : parse(text)) as { openapi?: unknown; paths?: object };
      const paths = Object.keys(doc.paths ?? {}).length;
      if (typeof doc.openapi === 'string' && doc.openapi.startsWith('3.') && paths >= 1 && paths <= maxPaths) found.push(file);
    } catch {
      // Not a contract.
    }
  }
  return found.sort();
}

/** `count` of `items`, drawn with a seeded shuffle (the same seed, the same sample). */
function sample<T>(items: T[], count: number, seed: number): T[] {
  let state = seed >>> 0;
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, count);
}

/** Packs the kit and installs it, with what `init` adds, into `work`/base (once per run). */
async function installBase(work: string): Promise<string> {
  const base = join(work, 'base');
  rmSync(base, { recursive: true, force: true });
  mkdirSync(base, { recursive: true });
  const must = async (program: string, args: string[], cwd: string) => {
    const outcome = await inProject(cwd, program, args);
    if (outcome.code !== 0) throw new Error(`${program} ${args.join(' ')} failed:\n${outcome.output}`);
    return outcome.output;
  };
  const packed = (await must('npm', ['pack', '-w', 'contract-kit', '--pack-destination', work, '--silent'], ROOT))
    .trim()
    .split('\n')
    .at(-1)!;
  writeFileSync(join(base, 'package.json'), JSON.stringify({ name: 'base', version: '1.0.0', private: true }));
  await must('npm', ['install', join(work, packed), 'express'], base);
  writeFileSync(join(base, 'openapi.yaml'), readFileSync(FIXTURE));
  await must('npx', ['contract-kit', 'init'], base);
  await must('npm', ['install'], base);
  return base;
}

function summarize(runs: ContractRun[]): string {
  const accepted = runs.filter((run) => run.accepted.ok);
  const lines = [`${runs.length} contracts; accepted by openapi-typescript and Prism: ${accepted.length}`];
  for (const by of ['openapi-typescript', 'Prism']) {
    const refused = runs.filter((run) => run.accepted.by === by);
    if (refused.length > 0) lines.push(`  refused by ${by}: ${refused.length}`);
  }
  for (const step of STEPS) {
    const reached = accepted.filter((run) => run.steps[step] !== undefined);
    lines.push(`  ${step.padEnd(10)} ${reached.filter((run) => run.steps[step]!.ok).length} of ${reached.length} ok`);
  }
  const green = accepted.filter((run) => run.green);
  lines.push(`green: ${green.length} of ${accepted.length} (${((100 * green.length) / Math.max(1, accepted.length)).toFixed(1)} %)`);
  for (const run of accepted.filter((r) => !r.green)) {
    const step = STEPS.find((s) => run.steps[s]?.ok !== true)!;
    lines.push(
      `\n- ${run.contract} (${run.paths} paths): ${step}\n    ${(run.steps[step]?.detail ?? 'not reached').replaceAll('\n', '\n    ')}`,
    );
  }
  return lines.join('\n');
}

const USAGE = readFileSync(new URL(import.meta.url), 'utf8')
  .split('*/')[0]!
  .replace(/^\/\*\*|^ \* ?/gm, '')
  .trim();

if (values.help) {
  console.log(USAGE);
} else if (values.report !== undefined) {
  console.log(
    summarize(
      readFileSync(values.report, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ContractRun),
    ),
  );
} else {
  if (values.dir === undefined || !existsSync(values.dir)) {
    console.error(`--dir names no folder of contracts${values.dir === undefined ? '' : `: ${values.dir}`}\n\n${USAGE}`);
    process.exit(2);
  }
  const [count, seed, maxPaths, jobs] = [values.sample, values.seed, values['max-paths'], values.jobs].map(Number) as [
    number,
    number,
    number,
    number,
  ];
  const work = resolve(values.work);
  mkdirSync(work, { recursive: true });
  const out = resolve(values.out ?? join(work, `run-${seed}.jsonl`));
  const all = contractsUnder(values.dir, maxPaths);
  // --only: the contracts whose path under --dir holds one of these texts, rather than a sample.
  const only = values.only?.split(',').filter(Boolean);
  const chosen =
    only === undefined ? sample(all, count, seed) : all.filter((file) => only.some((text) => relative(values.dir!, file).includes(text)));
  console.log(`${chosen.length} of ${all.length} contracts (seed ${seed}); installing the packed kit in ${join(work, 'base')}`);
  const base = await installBase(work);
  writeFileSync(out, '');
  const runs: ContractRun[] = [];
  let nextIndex = 0;
  const worker = async () => {
    while (nextIndex < chosen.length) {
      const file = chosen[nextIndex++]!;
      const name = relative(values.dir!, file)
        .replace(/\.(json|ya?ml)$/, '')
        .replace(/[^\w.-]+/g, '_');
      const run = await runContract(file, name, join(work, 'projects'), base).catch((error: unknown): ContractRun => ({
        contract: file,
        paths: 0,
        accepted: { ok: false, by: 'the harness', detail: String(error) },
        steps: {},
        named: [],
        green: false,
      }));
      run.contract = relative(values.dir!, file);
      runs.push(run);
      appendFileSync(out, `${JSON.stringify(run)}\n`);
      const failed = STEPS.find((step) => run.steps[step]?.ok === false);
      console.log(
        `${runs.length}/${chosen.length} ${run.contract}: ${run.accepted.ok ? (run.green ? 'green' : `not green (${failed ?? 'not reached'})`) : `refused by ${run.accepted.by}`}`,
      );
      if (run.green) rmSync(join(work, 'projects', name), { recursive: true, force: true });
    }
  };
  await Promise.all(Array.from({ length: jobs }, worker));
  console.log(`\n${summarize(runs)}\n\nEach contract's run: ${out}`);
}
