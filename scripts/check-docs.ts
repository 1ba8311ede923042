/**
 * `npm run check:docs`: the guides say what the code does (see HELP).
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import { SETTINGS, type Setting } from '../src/service/config/settings.js';
import { parseCommandLine } from '../src/shared/command-line.js';
import { PACKAGE_ROOT } from '../src/shared/package-root.js';
import { serveCommand } from '../bench/processes.js';

const HELP = `Usage: npm run check:docs [-- --write]

Checks the guides against the code and against each other:
  - the settings table of docs/operators.md is the one made from src/service/config/settings.ts
    (every variable the service reads, its default and what it does, as --help prints them);
  - every relative link of README.md, docs/*.md and packages/client/README.md names a file
    that exists, and a heading of it where it names one (#anchor, as GitHub makes them);
  - node's V8 flags are those of npm run serve wherever the service is started with them:
    npm start, the Dockerfile's CMD and the RUN that fills its compile cache (kept per set of
    flags), and each release/server.js command in docs/operators.md's code blocks.
Exits 1 with each difference. npm run check runs it.

Options:
  --write     Write the settings table into docs/operators.md instead of checking it.
  -h, --help  Show this help.
`;

const OPERATORS = join(PACKAGE_ROOT, 'docs', 'operators.md');
const BEGIN = '<!-- settings: written from src/service/config/settings.ts by npm run check:docs -- --write; edit them there -->';
const END = '<!-- end of settings -->';

/** A setting's default as the table shows it: paths from the package root, unset for none. */
function shownDefault(value: unknown): string {
  if (value === null) return 'unset';
  if (typeof value === 'string') return `\`${value.startsWith(PACKAGE_ROOT) ? relative(PACKAGE_ROOT, value) : value}\``;
  if (typeof value === 'number' || typeof value === 'boolean') return `\`${value}\``;
  return `\`${JSON.stringify(value)}\``;
}

/** The settings table, between its markers. */
function settingsTable(): string {
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const rows = Object.values(SETTINGS as Record<string, Setting<unknown>>).map(
    (s) => `| \`${s.variable}\` | ${shownDefault(s.default)} | ${cell(s.doc)} |`,
  );
  return [BEGIN, '', '| variable | default | meaning |', '| --- | --- | --- |', ...rows, '', END].join('\n');
}

/** docs/operators.md with its settings table as settings.ts makes it, or an Error saying where the markers are missing. */
function withSettingsTable(text: string): string {
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`docs/operators.md has lost the settings table's markers:\n  ${BEGIN}\n  ${END}`);
  return text.slice(0, begin) + settingsTable() + text.slice(end + END.length);
}

/** The Markdown files whose links are checked. */
function markdownFiles(): string[] {
  const docs = readdirSync(join(PACKAGE_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(PACKAGE_ROOT, 'docs', name));
  return [join(PACKAGE_ROOT, 'README.md'), ...docs, join(PACKAGE_ROOT, 'packages', 'client', 'README.md')];
}

const FENCED_CODE = /^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm;

/** Markdown without its fenced code blocks and inline code, where a link is no link. */
function prose(text: string): string {
  return text.replace(FENCED_CODE, '').replace(/`[^`\n]*`/g, '');
}

const anchorsRead = new Map<string, Set<string>>();

/** The anchors GitHub gives the headings of a Markdown file (outside its code blocks), read once per file. */
function anchorsOf(file: string): Set<string> {
  const known = anchorsRead.get(file);
  if (known) return known;
  const slugger = new GithubSlugger();
  const text = readFileSync(file, 'utf8').replace(FENCED_CODE, '');
  // A link in a heading counts by its text; the slugger drops the rest of Markdown's punctuation.
  const anchors = new Set(
    (text.match(/^#{1,6} .+$/gm) ?? []).map((heading) => slugger.slug(heading.replace(/^#+ /, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'))),
  );
  anchorsRead.set(file, anchors);
  return anchors;
}

/** Each broken relative link of `file`, as "file: target (why)". */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  const name = relative(PACKAGE_ROOT, file);
  for (const [, target = ''] of prose(readFileSync(file, 'utf8')).matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [path = '', anchor] = target.split('#');
    const linked = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    if (!existsSync(linked)) {
      broken.push(`${name}: ${target} (no such file)`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (statSync(linked).isDirectory() || !linked.endsWith('.md'))
      broken.push(`${name}: ${target} (an anchor into a file that is not Markdown)`);
    else if (!anchorsOf(linked).has(decodeURIComponent(anchor)))
      broken.push(`${name}: ${target} (no such heading in ${relative(PACKAGE_ROOT, linked)})`);
  }
  return broken;
}

/** The `--name=value` flags given to node in a command line (words after `node`), in order. */
function nodeFlags(words: string[]): string[] {
  return words.slice(words.indexOf('node') + 1).filter((word) => /^--[\w-]+=\S+$/.test(word));
}

/** Each place that starts the service with other V8 flags than `npm run serve` (as "where: flags"), and how many places were read. */
function flagDifferences(): { differences: string[]; places: number } {
  const wanted = nodeFlags(['node', ...serveCommand().args]).join(' ');
  const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const dockerfile = readFileSync(join(PACKAGE_ROOT, 'Dockerfile'), 'utf8');
  const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
  const run = /^RUN (node .*server\.js.*)$/m.exec(dockerfile)?.[1];
  const places: [string, string[] | undefined][] = [
    ['package.json start script', manifest.scripts.start?.split(/ +/)],
    ["the Dockerfile's CMD", cmd === undefined ? undefined : (JSON.parse(cmd) as string[])],
    ["the Dockerfile's RUN that fills the compile cache", run?.split(/ +/)],
    // The commands of its code blocks (its prose may name a bare `node release/server.js`).
    ...(readFileSync(OPERATORS, 'utf8').match(FENCED_CODE) ?? [])
      .flatMap((block) => block.split('\n'))
      .filter((line) => /\bnode .*release\/server\.js/.test(line))
      .map((line): [string, string[]] => [`docs/operators.md: ${line.trim()}`, line.split('#')[0]!.trim().split(/ +/)]),
  ];
  const differences = places.flatMap(([where, words]) => {
    const flags = words && nodeFlags(words).join(' ');
    return flags === wanted ? [] : [`${where}: node's flags are "${flags ?? '(not found)'}", not npm run serve's "${wanted}"`];
  });
  return { differences, places: places.length };
}

function main(): void {
  const { values } = parseCommandLine(HELP, { write: { type: 'boolean', default: false } });
  const text = readFileSync(OPERATORS, 'utf8');
  const wanted = withSettingsTable(text);
  const problems: string[] = [];
  if (values.write) {
    if (wanted !== text) writeFileSync(OPERATORS, wanted);
    process.stdout.write(`docs/operators.md: settings table ${wanted === text ? 'already up to date' : 'written'}\n`);
  } else if (wanted !== text) {
    problems.push('docs/operators.md: the settings table differs from src/service/config/settings.ts (npm run check:docs -- --write)');
  }
  const files = markdownFiles();
  const broken = files.flatMap(brokenLinks);
  problems.push(...broken);
  const flags = flagDifferences();
  problems.push(...flags.differences);
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(
    `docs: settings table up to date (${Object.keys(SETTINGS).length} settings); links of ${files.length} files hold; node's flags agree in ${flags.places} places\n`,
  );
}

try {
  main();
} catch (error) {
  process.stderr.write(`check:docs: ${(error as Error).message}\n`);
  process.exit(1);
}
