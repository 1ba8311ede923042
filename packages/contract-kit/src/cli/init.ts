import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { loadContract } from '../contract/load-contract.js';
import { securitySchemesOf, type SecurityScheme } from '../server/security.js';
import { parseCommand, UsageError } from './command-line.js';

export const INIT_HELP = `Usage: contract-kit init [--spec FILE]

Sets up a project that has a contract and nothing else (after npm init -y and installing
contract-kit) to serve it, and says what it wrote. It never overwrites a file, nor a script or
dependency package.json already has:

  package.json      "type": "module" (the files below are ES modules); the scripts generate,
                    start, test, typecheck, mock, docs, lint, check:breaking and conform; express and
                    openapi-fetch, and for development typescript, tsx, vitest and the types
  tsconfig.json     strict TypeScript for Node.js
  src/context.ts    what your handlers get besides their input (empty to begin with)
  src/security.ts   one verifying function per security scheme of the contract; each refuses
                    every request until you write it
  src/errors.ts     the error body of every refusal: RFC 9457 problem details until you write
                    your contract's error shape there (the server says at start if it differs)
  src/app.ts        the Express app: the contract served with the handlers and the security
  src/server.ts     listens on PORT (default 3000), stops on SIGTERM and SIGINT
  test/app.test.ts  a test that every operation of the contract is routed (it passes at once)

Then: npm install, npm run generate (the types and a stub per operation), npm start.

Options:
  --spec FILE   The contract (default openapi.yaml).
  -h, --help    Show this help.
`;

/** The versions init adds, those the kit is tested with. */
export const PROJECT_DEPENDENCIES = { express: '5.3.0', 'openapi-fetch': '0.17.0' };
export const PROJECT_DEV_DEPENDENCIES = {
  '@types/express': '5.0.6',
  '@types/node': '24.19.2',
  tsx: '4.23.15',
  typescript: '5.9.3',
  vitest: '5.1.1',
};

function scriptsFor(spec: string): Record<string, string> {
  const option = spec === 'openapi.yaml' ? '' : ` --spec ${spec}`;
  return {
    generate: `contract-kit generate${option}`,
    start: 'node --import tsx src/server.ts',
    test: 'vitest run',
    typecheck: 'tsc --noEmit',
    mock: `contract-kit mock${option}`,
    docs: `contract-kit docs${option}`,
    lint: `contract-kit lint${option}`,
    'check:breaking': `contract-kit check-breaking${option}`,
    conform: `contract-kit conform${option}`,
  };
}

const TSCONFIG = `{
  "compilerOptions": {
    "target": "ES2022",
    "lib": ["ES2023"],
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "skipLibCheck": true,
    "types": ["node"],
    "noEmit": true
  },
  "include": ["src", "test", "generated"]
}
`;

const CONTEXT = `/** What every handler gets besides its input (its second argument, with the caller): add what they need, such as a database. */
export interface Context {}

/** The context the app gives handlers. */
export const context: Context = {};
`;

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

function security(schemes: Map<string, SecurityScheme>): string {
  const entries = [...schemes].map(
    ([name, scheme]) =>
      `  /** ${name}: gets ${credentialsOf(scheme)}. Return { caller } for valid credentials, undefined otherwise. */\n` +
      `  ${JSON.stringify(name)}: () => undefined,\n`,
  );
  return (
    "import type { Verifier } from 'contract-kit';\n\n" +
    '/** One verifying function per security scheme of the contract. Each refuses every request until you write it. */\n' +
    `export const security: Record<string, Verifier> = {\n${entries.join('')}};\n`
  );
}

const ERRORS = `import { problemDetails, type ProblemFormatter } from 'contract-kit';

/**
 * The body of every refusal and failure (a 400 with its details, a 401, a 404, a 500): RFC 9457
 * problem details as application/problem+json. If your contract declares another error shape,
 * build it here from the problem ({ status, code, message, details, headers }) in the media type
 * given (the one the operation declares for that status); the server says at start when they differ.
 */
export const errors: ProblemFormatter = problemDetails;
`;

const app = (spec: string) => `import { fileURLToPath } from 'node:url';
import express from 'express';
import { contractServer, loadContract } from 'contract-kit';
import { handlers } from '../generated/handlers.js';
import { context } from './context.js';
import { errors } from './errors.js';
import { security } from './security.js';

/** The contract this app serves. */
export const CONTRACT = fileURLToPath(new URL('../${spec}', import.meta.url));

/** The Express app serving the contract: every operation routed, checked and answered as it says. */
export async function createApp() {
  const kit = contractServer({
    contract: await loadContract(CONTRACT),
    label: '${spec}',
    handlers,
    security,
    errors,
    context: () => context,
    // A 500 says nothing to the client: its reason (a handler's error, an answer the contract does not allow) is logged here.
    // A stub's 501 is named once at start, not on every request.
    onError: (error, problem, req) => {
      if (problem.status >= 500 && problem.code !== 'not_implemented') console.error(\`\${req.method} \${req.originalUrl} → \${problem.status}:\`, error);
    },
  });
  const app = express();
  app.disable('x-powered-by');
  app.use(kit.router);
  app.use(kit.notFound);
  app.use(kit.errorHandler);
  return app;
}
`;

const SERVER = `import { createRequire } from 'node:module';
import { parse } from 'node:url';
import { closeUnreadBody } from 'contract-kit';
import { createApp } from './app.js';

// Required, not imported: an ES import of node:http loads undici, Node's HTTP client, which a
// server does not use (nodejs/node#59686): 100 ms more to start, 13 MiB more memory.
const { createServer } = createRequire(import.meta.url)('node:http') as typeof import('node:http');
// The validator calls url.parse() on every request, and Node 24 and 26 take a stack trace on
// each call until they have warned of it (DEP0169) once: warned here, silenced.
const silenced = process.noDeprecation;
process.noDeprecation = true;
parse('/');
process.noDeprecation = silenced;

const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(\`PORT must be a port number (0 to 65535), not "\${process.env.PORT}"\`);
  process.exit(2);
}
const server = createServer(await createApp());
// A chunked or oversized body that an answer left unread is not read on.
server.on('request', (req, res) => closeUnreadBody(req, res));
server.listen(port, () => console.log(\`Listening on http://localhost:\${port}\`));
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
  });
}
`;

const TEST = `import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { basePathsOf, listOperations, loadContract } from 'contract-kit';
import { CONTRACT, createApp } from '../src/app.js';

const server = createServer();
beforeAll(async () => {
  server.on('request', await createApp());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

it('routes every operation of the contract', async () => {
  const contract = await loadContract(CONTRACT);
  const [base = ''] = basePathsOf(contract);
  const origin = \`http://127.0.0.1:\${(server.address() as AddressInfo).port}\`;
  for (const op of listOperations(contract)) {
    const response = await fetch(\`\${origin}\${base}\${op.path.replace(/\\{[^}]+\\}/g, '1')}\`, { method: op.method.toUpperCase() });
    await response.arrayBuffer();
    // 404 and 405 would say the contract's operation is not routed; anything else is its answer.
    expect([404, 405], \`\${op.method.toUpperCase()} \${op.path}\`).not.toContain(response.status);
  }
});
`;

/** `contract-kit init`: writes what a project needs to serve its contract. */
export async function init(args: string[], cwd = process.cwd()): Promise<number> {
  const parsed = parseCommand(INIT_HELP, args, { spec: { type: 'string', default: 'openapi.yaml' } });
  if (!parsed) return 0;
  const { spec } = parsed.values;
  const manifestPath = join(cwd, 'package.json');
  if (!existsSync(manifestPath)) throw new UsageError('there is no package.json here: run npm init -y first');
  const schemes = securitySchemesOf(await loadContract(resolve(cwd, spec), spec));
  const said = (line: string) => process.stdout.write(`${line}\n`);

  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown> & {
    scripts?: Record<string, string>;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  if (manifest.type !== 'module') said(`package.json: "type": "module" (it was ${JSON.stringify(manifest.type ?? 'unset')})`);
  manifest.type = 'module';
  // npm init's placeholder, which only fails.
  if (manifest.scripts?.test === 'echo "Error: no test specified" && exit 1') delete manifest.scripts.test;
  const add = (field: 'scripts' | 'dependencies' | 'devDependencies', entries: Record<string, string>) => {
    const into = (manifest[field] ??= {});
    for (const [name, value] of Object.entries(entries)) {
      if (
        into[name] !== undefined ||
        (field !== 'scripts' && (manifest.dependencies?.[name] ?? manifest.devDependencies?.[name]) !== undefined)
      ) {
        if (into[name] !== value) said(`package.json: kept ${field}.${name} as it is (${into[name] ?? 'elsewhere'})`);
        continue;
      }
      into[name] = value;
      said(`package.json: ${field}.${name} = ${value}`);
    }
  };
  add('scripts', scriptsFor(spec));
  add('dependencies', PROJECT_DEPENDENCIES);
  add('devDependencies', PROJECT_DEV_DEPENDENCIES);
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);

  const files: [string, string][] = [
    ['tsconfig.json', TSCONFIG],
    ['src/context.ts', CONTEXT],
    ['src/security.ts', security(schemes)],
    ['src/errors.ts', ERRORS],
    ['src/app.ts', app(relative(cwd, resolve(cwd, spec)).split('\\').join('/'))],
    ['src/server.ts', SERVER],
    ['test/app.test.ts', TEST],
  ];
  for (const [name, text] of files) {
    const path = join(cwd, name);
    if (existsSync(path)) {
      said(`kept ${name} as it is`);
      continue;
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text, { flag: 'wx' });
    said(`wrote ${name}`);
  }
  said('\nNext: npm install, then npm run generate (the types, and a stub answering 501 per operation), then npm start.');
  return 0;
}
