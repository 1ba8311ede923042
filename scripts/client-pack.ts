/**
 * `npm run client:pack`: the client package as an application installs it, a tarball (npm pack
 * of packages/client, built from the contract's current types), and the command that installs it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseCommandLine } from '../src/shared/command-line.js';

const HELP = `Usage: npm run client:pack [-- --out DIR]

Packs @animal-store/client (packages/client: the typed client of openapi.yaml) into a tarball,
versioned with the contract's info.version, and prints the command that installs it in an
application outside this repository:

  npm install /path/to/animal-store-client-1.0.0.tgz

To publish it to a registry your organisation runs instead:
  npm publish -w @animal-store/client --registry <your registry's URL>

Options:
  --out DIR      Where the tarball goes (default build/).
  -h, --help     Show this help.
`;

const { values } = parseCommandLine(HELP, { out: { type: 'string', default: 'build' } });
const out = resolve(values.out);
mkdirSync(out, { recursive: true });
const packed = execFileSync('npm', ['pack', '-w', '@animal-store/client', '--pack-destination', out, '--json'], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [info] = JSON.parse(packed.slice(packed.indexOf('['))) as { filename: string; size: number }[];
const tarball = join(out, info!.filename);
process.stdout.write(
  `Packed @animal-store/client into ${tarball} (${Math.round(info!.size / 1024)} KiB).\n` +
    `In your application:\n  npm install ${tarball}\n`,
);
