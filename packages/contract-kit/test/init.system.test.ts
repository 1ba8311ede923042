/**
 * The project `contract-kit init` makes, run as its team runs it: npm test, npm start and
 * npm run mock, stopped by the signal npm gets. The kit is built and linked (linked-project.ts);
 * the adoption test does the same from its tarball, on every fixture contract.
 */
import { once } from 'node:events';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, inProject, listening, processTree, signalNpm, startScript, stillRunning, stop } from './adoption/project.js';
import { buildKit, linkedProject } from './linked-project.js';

let dir: string;
beforeAll(async () => {
  await buildKit();
  dir = await linkedProject('orders-3.1.yaml');
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const problem = (status: number, title: string) => ({ type: 'about:blank', title, status });
const order = { id: 7, item: 'tea', quantity: 2 };
/** Every status each operation of orders-3.1.yaml declares, as its handler answers it: the one of round N is the Nth (modulo their number). */
const ANSWERS: Record<string, object[]> = {
  createOrder: [
    { status: 201, body: order },
    { status: 400, body: problem(400, 'Bad Request') },
  ],
  getOrder: [
    { status: 200, body: order },
    { status: 404, body: problem(404, 'Not Found') },
  ],
  deleteOrder: [
    { status: 204 },
    { status: 404, body: problem(404, 'Not Found') },
    { status: 405, headers: { Allow: 'GET' }, body: problem(405, 'Shipped') },
  ],
};
const ROUNDS = Math.max(...Object.values(ANSWERS).map((answers) => answers.length));

describe('the files contract-kit init writes', () => {
  it('type-check, filled in for the contract, with what generate wrote (npm run typecheck)', async () => {
    const checked = await inProject(dir, 'npm', ['run', 'typecheck']);
    expect(checked.code, checked.output).toBe(0);
  }, 60_000);
});

describe('the test contract-kit init writes', () => {
  beforeAll(() => {
    for (const [name, answers] of Object.entries(ANSWERS))
      writeFileSync(
        join(dir, 'src', 'handlers', `${name}.ts`),
        `const answers = ${JSON.stringify(answers)};\n\nexport const ${name} = () => answers[Number(process.env.ROUND) % answers.length];\n`,
      );
  });

  it('passes whatever status a handler answers of those its operation declares, 404 and 405 included', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const tested = await inProject(dir, 'npm', ['test'], { ROUND: String(round) });
      expect(tested.code, `round ${round}:\n${tested.output}`).toBe(0);
    }
  }, 120_000);

  it('fails, naming the operation, when the app routes none of them', async () => {
    const app = join(dir, 'src', 'app.ts');
    const written = readFileSync(app, 'utf8');
    writeFileSync(app, written.replace("label: 'openapi.yaml',", "label: 'openapi.yaml', basePath: '/elsewhere',"));
    try {
      const tested = await inProject(dir, 'npm', ['test'], { ROUND: '1' });
      expect(tested.code, tested.output).toBe(1);
      expect(tested.output).toContain('POST /orders is not routed: 404 not_found');
    } finally {
      writeFileSync(app, written);
    }
  }, 60_000);
});

describe.each([
  ['start', 'SIGTERM'],
  ['start', 'SIGINT'],
  ['mock', 'SIGTERM'],
  ['mock', 'SIGINT'],
] as const)('npm run %s, sent %s', (script, signal) => {
  it('stops with npm, leaving no process behind nor anything on the port', async () => {
    const port = await freePort();
    const [args, env, ready] =
      script === 'start' ? [[], { PORT: String(port) }, /Listening on/] : [['--port', String(port)], {}, /Mock of .* listening on/];
    const running = await startScript(dir, script, args, env, ready);
    try {
      // npm, the server (exec'd in place of npm's shell) and what it runs (esbuild's service for tsx, Prism for the mock).
      expect(processTree(running.child.pid!).length, running.output()).toBeGreaterThanOrEqual(script === 'start' ? 2 : 3);
      expect(await signalNpm(running, signal), `left running:\n${running.output()}`).toEqual([]);
      expect(await listening(port)).toBe(false);
    } finally {
      await stop(running);
    }
  }, 60_000);
});

describe('npm start, sent SIGTERM while an upload is on its way', () => {
  it('stops within SHUTDOWN_TIMEOUT_MS, closing the upload', async () => {
    const port = await freePort();
    const running = await startScript(dir, 'start', [], { PORT: String(port), SHUTDOWN_TIMEOUT_MS: '1000' }, /Listening on/);
    try {
      const upload = connect({ host: '127.0.0.1', port });
      await once(upload, 'connect');
      upload.on('error', () => {});
      const closed = once(upload, 'close');
      upload.write(
        'POST /shop/orders HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"item":"',
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const processes = processTree(running.child.pid!);
      const began = performance.now();
      running.child.kill('SIGTERM');
      expect(await stillRunning(processes, 5000), `left running 5 s after SIGTERM:\n${running.output()}`).toEqual([]);
      expect(performance.now() - began).toBeGreaterThanOrEqual(900);
      await closed;
      expect(running.output()).toContain('requests still in flight 1000 ms after the stop began: their connections are closed');
    } finally {
      await stop(running);
    }
  }, 60_000);
});
