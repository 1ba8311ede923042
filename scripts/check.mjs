// `npm run check`: every check a commit must pass, run side by side, as many at once as the
// machine has cores (the longest, ESLint's, first). Each step is an npm script of its own, to
// run alone; this prints a line per step as it ends, with its time, the whole output of each
// one that failed, and exits 1 naming them.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const HELP = `Usage: npm run check

Runs, side by side, each of these npm scripts, and fails when one fails:
  lint:code        ESLint with typescript-eslint's type-aware rules and the size limits
  lint:contract    Redocly lint of openapi.yaml with the project's rules
  format:check     Prettier: the files that differ from its format
  build            the client package and the service compiled
  typecheck        tsc over everything, type-level tests included
  check:unused     knip: unused files, exports and dependencies
  check:imports    dependency-cruiser: import circles and the layers' rules
  check:generated  generated/ and the client's generated types up to date with openapi.yaml
  check:breaking   openapi.yaml against the last released contract (contracts/released/): no
                   breaking change without a new major version
  check:docs       the settings table of docs/operators.md made from the settings, the links
                   between the guides, and node's V8 flags the same wherever the service starts
`;

/** Longest first, so that the others share the remaining cores while it runs. */
const STEPS = [
  'lint:code',
  'build',
  'typecheck',
  'format:check',
  'lint:contract',
  'check:unused',
  'check:imports',
  'check:generated',
  'check:breaking',
  'check:docs',
];

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(HELP);
  process.exit(0);
}

const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
const running = new Set();

// Stopped (Ctrl-C, a timeout): the steps running are stopped with it, not left behind.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    // Each step is a process group of its own (npm, its shell, the tool): stopped whole.
    for (const child of running) process.kill(-child.pid, signal);
    process.stderr.write(`npm run check stopped (${signal})\n`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

/** Runs one npm script; resolves with its exit code, its output and how long it took. */
function run(step) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(npm[0], [...npm.slice(1), 'run', '-s', step], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child);
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve({
        step,
        ok: code === 0,
        code: code ?? signal,
        output: Buffer.concat(output).toString(),
        seconds: (Date.now() - started) / 1000,
      });
    });
  });
}

const started = Date.now();
const queue = [...STEPS];
const failed = [];
const worker = async () => {
  for (let step = queue.shift(); step; step = queue.shift()) {
    const result = await run(step);
    process.stdout.write(`${result.ok ? 'ok    ' : 'FAILED'} ${step.padEnd(16)} ${result.seconds.toFixed(1)} s\n`);
    if (!result.ok) {
      failed.push(step);
      process.stdout.write(`---- ${step} (exit ${result.code}) ----\n${result.output.trimEnd()}\n---- end of ${step} ----\n`);
    }
  }
};
await Promise.all(Array.from({ length: Math.min(availableParallelism(), STEPS.length) }, worker));

const total = ((Date.now() - started) / 1000).toFixed(1);
if (failed.length > 0) {
  process.stderr.write(`npm run check failed in ${total} s: ${failed.join(', ')} (run each alone: npm run ${failed[0]})\n`);
  process.exit(1);
}
process.stdout.write(`npm run check passed: ${STEPS.length} checks in ${total} s\n`);
