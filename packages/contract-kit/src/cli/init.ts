import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContractError } from '../contract/document.js';
import { BUNDLER, hasExternalRefs, loadContract, parseContract } from '../contract/load-contract.js';
import { securitySchemesOf, type SecurityScheme } from '../server/security.js';
import { parseCommand, UsageError } from './command-line.js';
import { COMMAND_TOOLS } from './tools.js';

export const INIT_HELP = `Usage: contract-kit init [--spec FILE]

Sets up a project that has a contract and nothing else (after npm init -y and installing
contract-kit) to serve it, and says what it wrote: the files of the package's templates/, with
the contract's path and security schemes filled in. It never overwrites a file, nor a script or
dependency package.json already has:

  package.json      "type": "module" (the files below are ES modules); the scripts generate,
                    start, test, typecheck, mock, docs, lint, check:breaking and conform, each
                    run with exec (so that the signal npm gets stops it); express and
                    openapi-fetch (and @redocly/openapi-core for a contract split into
                    files, which it reads whole), and for development the tools of the kit's commands
                    (Prism, Redocly CLI, openapi-typescript and TypeScript, fast-check),
                    tsx, vitest and the types, which a production install (npm ci
                    --omit=dev) leaves out; allowScripts for the install scripts they bring (esbuild's runs, the
                    analytics of @scarf/scarf, which Prism brings, does not)
  .gitignore        node_modules/ and build/ (where docs writes)
  tsconfig.json     strict TypeScript for Node.js
  src/context.ts    what your handlers get besides their input (empty to begin with)
  src/security.ts   one verifying function per security scheme of the contract; each refuses
                    every request until you write it
  src/errors.ts     where to build error bodies yourself; until you do, each is built from the
                    error response the contract declares for its status
  src/app.ts        the Express app: the contract served with the handlers and the security
  src/server.ts     listens on PORT (default 3000) with serve(), which stops on SIGTERM and
                    SIGINT within SHUTDOWN_TIMEOUT_MS (10 s) whatever its clients do, and
                    says when every operation's validator is compiled
  test/app.test.ts  a test that every operation of the contract is routed: none is answered
                    the kit's own 404 or 405 (it passes at once, and once handlers are written)

Then: npm install, npm run generate (the types and a stub per operation), npm start.

Options:
  --spec FILE   The contract (default openapi.yaml).
  -h, --help    Show this help.
`;

/** The versions init adds, those the kit is tested with; the commands' tools are for development only. */
export const PROJECT_DEPENDENCIES = { express: '5.3.0', 'openapi-fetch': '0.17.0' };
export const PROJECT_DEV_DEPENDENCIES: Record<string, string> = Object.fromEntries(
  Object.entries({ '@types/express': '5.0.6', '@types/node': '24.19.2', tsx: '4.23.15', vitest: '5.1.1', ...COMMAND_TOOLS }).sort(),
);

/**
 * npm's allowScripts for the packages with install scripts that the kit and the packages above
 * bring (npm 11 warns of those it does not cover, and npm 12 runs none of them without it).
 */
const ALLOW_SCRIPTS = {
  // tsx's and vitest's compiler: its postinstall checks the binary of the platform's package.
  esbuild: true,
  // Prism's: its postinstall reports the installation to scarf.sh, off the machine.
  '@scarf/scarf': false,
};

/**
 * The scripts init writes. Each `exec`s its command: npm runs a script with `sh -c`, and passes
 * a SIGTERM or SIGINT on to that shell, which would end and leave the command running (a server
 * holding its port); exec'd, the command is npm's child and gets the signal itself.
 */
function scriptsFor(spec: string): Record<string, string> {
  const option = spec === 'openapi.yaml' ? '' : ` --spec ${spec}`;
  return {
    generate: `exec contract-kit generate${option}`,
    start: 'exec node --import tsx src/server.ts',
    test: 'exec vitest run',
    typecheck: 'exec tsc --noEmit',
    mock: `exec contract-kit mock${option}`,
    docs: `exec contract-kit docs${option}`,
    lint: `exec contract-kit lint${option}`,
    'check:breaking': `exec contract-kit check-breaking${option}`,
    conform: `exec contract-kit conform${option}`,
  };
}

/** The files init writes, as they are written but for the placeholders fill() replaces. */
const TEMPLATES = fileURLToPath(new URL('../../templates/', import.meta.url));
/** npm leaves every .gitignore out of a package: the template is named without its dot. */
const PROJECT_NAMES: Record<string, string> = { gitignore: '.gitignore' };

/** What a scheme's verifying function receives, in words. */
function credentialsOf(scheme: SecurityScheme): string {
  switch (scheme.type) {
    case 'http':
      return scheme.scheme === 'basic'
        ? '{ username, password } (HTTP Basic)'
        : scheme.scheme === 'bearer'
          ? '{ token } (a bearer token)'
          : `{ credentials } (HTTP ${scheme.scheme})`;
    case 'apiKey':
      return `{ key } (an API key in the ${scheme.in} ${scheme.name})`;
    case 'oauth2':
    case 'openIdConnect':
      return '{ token } (a bearer token; return the scopes it grants too)';
    case 'mutualTLS':
      return '{ certificate } (the client certificate)';
  }
}

/**
 * A template as the project gets it: `__SPEC__` is the contract's path (escaped for the string
 * literals it stands in), and the lines naming `__SCHEME__` are written once per security scheme,
 * with its name and `__CREDENTIALS__` what its verifying function gets.
 */
function fill(template: string, spec: string, schemes: Map<string, SecurityScheme>): string {
  const lines = template.split('\n');
  const first = lines.findIndex((line) => line.includes('__SCHEME__'));
  if (first >= 0) {
    let end = first;
    while (lines[end]?.includes('__SCHEME__')) end++;
    const entries = [...schemes].flatMap(([name, scheme]) =>
      lines.slice(first, end).map((line) =>
        line
          .replace(/^(\s*)__SCHEME__:/, (_, indent: string) => `${indent}${/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name)}:`)
          .replaceAll('__SCHEME__', name)
          .replaceAll('__CREDENTIALS__', credentialsOf(scheme)),
      ),
    );
    lines.splice(first, end - first, ...entries);
  }
  return lines.join('\n').replaceAll('__SPEC__', spec.replace(/[\\'`$]/g, '\\$&'));
}

/** The templates, each by its path in the package's templates/ and in the project. */
export function templateFiles(): { template: string; name: string }[] {
  return readdirSync(TEMPLATES, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(TEMPLATES, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort()
    .map((template) => ({ template: join(TEMPLATES, template), name: PROJECT_NAMES[template] ?? template }));
}

/** `contract-kit init`: writes what a project needs to serve its contract. */
export async function init(args: string[], cwd = process.cwd()): Promise<number> {
  const parsed = parseCommand(INIT_HELP, args, { spec: { type: 'string', default: 'openapi.yaml' } });
  if (!parsed) return 0;
  const { spec } = parsed.values;
  const manifestPath = join(cwd, 'package.json');
  if (!existsSync(manifestPath)) throw new UsageError('there is no package.json here: run npm init -y first');
  // A contract split into files is read whole once its bundler is installed; before, its own file says what schemes it has.
  const root = parseContract(await readFile(resolve(cwd, spec), 'utf8').catch(() => ''), spec);
  const split = hasExternalRefs(root);
  const whole = await loadContract(resolve(cwd, spec), spec).catch((error: unknown) => {
    if (split && error instanceof ContractError && (error.cause as NodeJS.ErrnoException | undefined)?.code === 'ERR_MODULE_NOT_FOUND')
      return root;
    throw error;
  });
  const schemes = securitySchemesOf(whole);
  const said = (line: string) => process.stdout.write(`${line}\n`);

  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown> & {
    scripts?: Record<string, string | boolean>;
    dependencies?: Record<string, string | boolean>;
    devDependencies?: Record<string, string | boolean>;
    allowScripts?: Record<string, string | boolean>;
  };
  if (manifest.type !== 'module') said(`package.json: "type": "module" (it was ${JSON.stringify(manifest.type ?? 'unset')})`);
  manifest.type = 'module';
  // npm init's placeholder, which only fails.
  if (manifest.scripts?.test === 'echo "Error: no test specified" && exit 1') delete manifest.scripts.test;
  const add = (field: 'scripts' | 'dependencies' | 'devDependencies' | 'allowScripts', entries: Record<string, string | boolean>) => {
    const into = (manifest[field] ??= {});
    for (const [name, value] of Object.entries(entries)) {
      if (
        into[name] !== undefined ||
        ((field === 'dependencies' || field === 'devDependencies') &&
          (manifest.dependencies?.[name] ?? manifest.devDependencies?.[name]) !== undefined)
      ) {
        if (into[name] !== value) said(`package.json: kept ${field}.${name} as it is (${String(into[name] ?? 'elsewhere')})`);
        continue;
      }
      into[name] = value;
      said(`package.json: ${field}.${name} = ${String(value)}`);
    }
  };
  add('scripts', scriptsFor(spec));
  add('dependencies', split ? { ...PROJECT_DEPENDENCIES, ...BUNDLER } : PROJECT_DEPENDENCIES);
  add('devDependencies', PROJECT_DEV_DEPENDENCIES);
  add('allowScripts', ALLOW_SCRIPTS);
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);

  const specPath = relative(cwd, resolve(cwd, spec)).split('\\').join('/');
  for (const { template, name } of templateFiles()) {
    const path = join(cwd, name);
    if (existsSync(path)) {
      said(`kept ${name} as it is`);
      continue;
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, fill(readFileSync(template, 'utf8'), specPath, schemes), { flag: 'wx' });
    said(`wrote ${name}`);
  }
  said('\nNext: npm install, then npm run generate (the types, and a stub answering 501 per operation), then npm start.');
  return 0;
}
