// The service gives its heap back once the load stops (src/service/idle-memory.ts): V8's memory
// reducer, which Node.js 24 and 26 leave waiting for its 100-second watchdog, collects within
// its first ticks of idle. Read from V8's own trace of the reducer.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { killAtEnd, outputOf } from '../support/processes.js';
import { ROOT } from '../support/run.js';

// Garbage enough for full collections (which set the reducer waiting), then idle for longer than the test may take.
const BURST_THEN_IDLE = `
let kept = [];
for (let round = 0; round < 40; round++) {
  kept.push(Array.from({ length: 50_000 }, (_, i) => ({ i, name: 'animal ' + i })));
  if (kept.length > 8) kept = kept.slice(4);
}
kept = null;
console.log('burst done');
setTimeout(() => {}, 90_000);
`;

function idleProcess(imports: string[]) {
  const child = spawn(
    process.execPath,
    [
      '--max-semi-space-size=4',
      '--trace-memory-reducer',
      // The reducer's first tick a second after it is told of garbage, not eight: its later ticks stay 8 s apart.
      '--gc-memory-reducer-start-delay-ms=1000',
      '--import',
      'tsx',
      ...imports.flatMap((path) => ['--import', join(ROOT, path)]),
      '--input-type=module',
      '-e',
      BURST_THEN_IDLE,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  killAtEnd(child);
  return outputOf(child);
}

describe("the service's heap after load", () => {
  it('is collected by the memory reducer within its first ticks of idle, not at its 100-second watchdog', { timeout: 60_000 }, async () => {
    const output = idleProcess(['src/service/idle-memory.ts']);
    await output.written(/burst done/);
    await output.written(/Memory reducer: started GC/);
    expect(output.stdout()).toMatch(/Memory reducer: low alloc/);
  });
});
