import { fileURLToPath } from 'node:url';
import { x } from 'tinyexec';

/** The kit's command line, run from its sources as a process of its own. */
const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

/** Runs `contract-kit ARGS` in `cwd`: its exit code and output. */
export async function run(args: string[], cwd: string): Promise<{ code: number | undefined; stdout: string; stderr: string }> {
  // tsx by its path: the command runs in a folder that has none.
  const result = await x(process.execPath, ['--import', import.meta.resolve('tsx'), MAIN, ...args], {
    nodeOptions: { cwd },
    throwOnError: false,
  });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}
