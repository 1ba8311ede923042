import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseCommand, UsageError } from './command-line.js';
import { writeCompressedCopies } from './compressed-copies.js';
import { loadConfig } from './config.js';
import { redocly } from './tools.js';

export const DOCS_HELP = `Usage: contract-kit docs [--spec FILE] [--output FILE] [--template FILE] [--compress]

Renders the contract's reference with Redocly CLI (build-docs) into one HTML file that needs no
network: Redoc's scripts are inlined. Redocly reads the redocly.yaml of the folder it runs in.

Options:
  --spec FILE       The contract (default openapi.yaml).
  --output FILE     Where to write it (default build/docs/index.html).
  --template FILE   The page around Redoc, a Handlebars template as build-docs takes it
                    ({{title}}, {{{redocHead}}}, {{{redocHTML}}}): a Content-Security-Policy,
                    say, or the project's own head.
  --compress        Write the page compressed beside it too, FILE.br and FILE.gz, for a
                    server to send as they are.
  --config FILE     The configuration (default contract-kit.config.{js,mjs,ts}): its docs
                    section gives spec, output, template and compress.
  -h, --help        Show this help.
`;

/** `contract-kit docs`. */
export async function docs(args: string[], cwd = process.cwd()): Promise<number> {
  const parsed = parseCommand(DOCS_HELP, args, {
    spec: { type: 'string' },
    output: { type: 'string' },
    template: { type: 'string' },
    compress: { type: 'boolean' },
    config: { type: 'string' },
  });
  if (!parsed) return 0;
  const config = (await loadConfig(cwd, parsed.values.config)).docs ?? {};
  const spec = parsed.values.spec ?? config.spec ?? 'openapi.yaml';
  const output = resolve(cwd, parsed.values.output ?? config.output ?? 'build/docs/index.html');
  const template = parsed.values.template ?? config.template;
  if (template !== undefined && !existsSync(resolve(cwd, template))) throw new UsageError(`there is no template at ${template}`);
  const page = template === undefined ? [] : ['--template', resolve(cwd, template)];
  const code = await redocly(['build-docs', resolve(cwd, spec), '--inlineBundle', ...page, '--output', output]);
  if (code !== 0 || !(parsed.values.compress ?? config.compress)) return code;
  const written = await writeCompressedCopies(output);
  process.stdout.write(`Compressed copies written beside it: ${written.map((file) => relative(cwd, file) || file).join(', ')}\n`);
  return 0;
}
