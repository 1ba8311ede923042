// docs/architecture.md's "Where a request goes" is the map a newcomer reads first: the steps of
// each operation it lists are those the built app runs (contract-kit's stepsOf), in that order.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { listOperations } from 'contract-kit';
import { loadSpec } from '../../src/contract/load-spec.js';
import { anonymousLimitsOf, banPolicyOf } from '../../src/service/config/load-config.js';
import { defaultConfig } from '../../src/service/config/settings.js';
import { createApp } from '../../src/service/http/app.js';
import { RateLimiter } from '../../src/service/limits/limiter.js';
import { memoryCounters } from '../../src/service/limits/memory-counters.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { ROOT } from '../support/run.js';

const APP = 'src/service/http/app.ts';
/** Where the kit's steps of an operation are: its Steps. */
const KIT_STEPS = 'packages/contract-kit/src/server/steps.ts';

/** A line of the request path: the file (from the root for the kit's, else from app.ts's folder) and the name of the step. */
interface DocStep {
  file: string;
  name: string;
}

/** The `n`th code block under "## Where a request goes" (0: the app's steps, 1: each operation's). */
function block(n: number): string {
  const section = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8').split(/^## Where a request goes$/m)[1];
  const text = section?.split('```')[2 * n + 1];
  if (!text) throw new Error(`docs/architecture.md has no code block ${n + 1} under "## Where a request goes"`);
  return text;
}

const located = (file: string) => (file.startsWith('packages/') ? file : join(dirname(APP), file));

const parsed = (line: string): DocStep => {
  const [file = '', name = ''] = line.trim().split(/\s+/);
  return { file: located(file), name };
};

/** The steps createApp gives Express, as the first block lists them under app.ts: each line indented by two spaces. */
function appSteps(): DocStep[] {
  const lines = block(0).split('\n');
  const appLine = lines.findIndex((line) => line.split(/\s+/)[0] === APP);
  if (appLine < 0) throw new Error(`the request path in docs/architecture.md has no line for ${APP}`);
  const after = lines.slice(appLine + 1);
  const end = after.findIndex((line) => !line.startsWith('  '));
  return after
    .slice(0, end < 0 ? undefined : end)
    .filter((line) => !line.startsWith('    '))
    .map(parsed);
}

/** The steps of each operation, in the order the second block lists them: `file name` on each line. */
const operationSteps = (): DocStep[] => block(1).split('\n').filter(Boolean).map(parsed);

/** Whose a step of the list is, as stepsOf marks it: the kit's steps are in its Steps, the rest the service's. */
const whose = (step: DocStep) => `${step.file === KIT_STEPS ? 'kit' : 'application'} ${step.name}`;

describe('the request path of docs/architecture.md', () => {
  const dir = mkdtempSync(join(tmpdir(), 'request-path-'));
  const store = SqliteStore.open(join(dir, 'store.db'));
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const clock = new FakeClock();
  const defaults = defaultConfig();
  const { stepsOf } = createApp({
    store,
    clock,
    limiter: new RateLimiter(memoryCounters(), clock, banPolicyOf(defaults)),
    logger: pino({ level: 'silent' }),
    environment: 'production',
    anonymousLimits: anonymousLimitsOf(defaults),
  });
  const operations = listOperations(loadSpec());
  const documented = operationSteps();

  it.each(operations.map((op) => op.name))('lists the steps %s runs, in the order they run', (name) => {
    const listed = stepsOf(name).map((step) => `${step.by} ${step.name}`);
    // An operation leaves out the service's steps that are not its own (Idempotency-Key where it declares none).
    const expected = documented.map(whose).filter((step) => step.startsWith('kit ') || listed.includes(step));
    expect(listed, `docs/architecture.md's second block for ${name}, less the steps it has not`).toEqual(expected);
  });

  it('lists no step that no operation runs', () => {
    const run = new Set(operations.flatMap((op) => stepsOf(op.name).map((step) => `${step.by} ${step.name}`)));
    expect(documented.map(whose).filter((step) => !run.has(step))).toEqual([]);
  });

  it('names for each step a file that has it: the kit’s Steps, or the service’s module exporting it', () => {
    for (const step of documented) {
      if (step.file.startsWith('packages/')) expect(step.file).toBe(KIT_STEPS);
      else
        expect(readFileSync(join(ROOT, step.file), 'utf8'), step.file).toMatch(
          new RegExp(`^export (async )?(function|const) ${step.name}\\b`, 'm'),
        );
    }
  });

  it('names for each step of createApp a file that has it', () => {
    const steps = appSteps();
    expect(steps.length).toBeGreaterThan(8);
    for (const step of steps) {
      expect(existsSync(join(ROOT, step.file)), step.file).toBe(true);
      expect(readFileSync(join(ROOT, step.file), 'utf8'), step.file).toMatch(new RegExp(`\\b${step.name}\\b`));
    }
  });
});
