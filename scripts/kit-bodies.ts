/**
 * Part 8 of `npm run adversarial`: the CPU time a server of contract-kit, at the kit's default
 * body limit of 1 MiB, spends on each of the nastiest JSON bodies that fit under it, next to an
 * ordinary body of the same size. Run alone: `node --import tsx scripts/kit-bodies.ts`.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_BODY_LIMIT_BYTES as LIMIT, MAX_DEPTH } from 'contract-kit';
import { parseCommandLine, wholeNumberOption } from '../src/shared/command-line.js';
import { tableLines } from '../src/shared/text-table.js';
import { verdict } from './redis-stall.js';
import { closeConnections, cpuMs, send, type CpuRow } from './hostile-clients.js';
import { startServer } from './support/server-process.js';

/** The most CPU time a body may cost, as a multiple of the ordinary body's. */
const TARGET_RATIO = 3;

/** Part 8, as npm run adversarial -- --help lists it. */
export const KIT_BODIES_HELP = `  8. CPU time per request of a server of contract-kit at its defaults (1 MiB bodies at most,
     nested 64 deep) for the nastiest JSON bodies under 1 MiB (524,288 nested arrays, 87,381
     keys, 349,521 empty items, escapes) next to an ordinary body of as many bytes, --batch / 10
     requests each; alone: node --import tsx scripts/kit-bodies.ts   target: at most ${TARGET_RATIO}×`;

/** `unit` repeated, comma-separated, between `open` and `close`: as many as fit under the limit. */
function fill(open: string, unit: string, close: string): { count: number; body: string } {
  const count = Math.floor((LIMIT - open.length - close.length + 1) / (unit.length + 1));
  return { count, body: `${open}${Array.from({ length: count }, () => unit).join(',')}${close}` };
}

/** `open` `depth` times, `inner`, `close` as many times: as deep as fits under the limit. */
function nest(open: string, inner: string, close: string, bytes = LIMIT): { count: number; body: string } {
  const count = Math.floor((bytes - inner.length) / (open.length + close.length));
  return { count, body: `${open.repeat(count)}${inner}${close.repeat(count)}` };
}

const many = (n: number) => n.toLocaleString('en-US');

/** The ordinary body, and the nastiest ones, each under the kit's default limit. */
function kitBodies(): { ordinary: { name: string; body: string }; nasty: { name: string; body: string }[] } {
  const arrays = nest('[', '', ']');
  const objects = nest('{"a":', '1', '}');
  const deepest = nest('[', '', ']', 2 * (MAX_DEPTH - 2));
  const sideBySide = fill('{"items":[', deepest.body, ']}');
  const emptyArrays = fill('{"items":[', '[]', ']}');
  const emptyObjects = fill('{"items":[', '{}', ']}');
  const wrongType = fill('{"items":[', '1', ']}');
  let key = 0;
  const keys = fill('{', '"k______":1', '}');
  const sameKey = fill('{', '"k":1', '}');
  const name = (escape: string) => {
    const count = Math.floor((LIMIT - 40) / escape.length);
    return { count, body: `{"items":[{"name":"${escape.repeat(count)}","count":1}]}` };
  };
  const [unicode, quotes] = [name('\\u0041'), name('\\"')];
  const numbers = fill('{"items":[],"n":[', '1.0', ']}');
  const ordinary = fill('{"items":[', '{"name":"Rex the dog","count":12}', ']}');
  const nasty = [
    { name: `${many(arrays.count)} nested arrays`, body: arrays.body },
    { name: `${many(objects.count)} nested objects`, body: objects.body },
    { name: `${many(sideBySide.count)} arrays nested ${MAX_DEPTH} deep`, body: sideBySide.body },
    { name: `${many(emptyArrays.count)} empty arrays`, body: emptyArrays.body },
    { name: `${many(emptyObjects.count)} empty objects`, body: emptyObjects.body },
    { name: `${many(wrongType.count)} items of a wrong type`, body: wrongType.body },
    { name: `${many(keys.count)} keys in one object`, body: keys.body.replace(/______/g, () => String(key++).padStart(6, '0')) },
    { name: `one key ${many(sameKey.count)} times`, body: sameKey.body },
    { name: `a name of ${many(unicode.count)} \\u escapes`, body: unicode.body },
    { name: `a name of ${many(quotes.count)} \\" escapes`, body: quotes.body },
    { name: `${many(numbers.count)} numbers 1.0`, body: numbers.body },
  ];
  const all = [{ name: `ordinary: ${many(ordinary.count)} items`, body: ordinary.body }, ...nasty];
  for (const b of all) if (Buffer.byteLength(b.body) > LIMIT) throw new Error(`${b.name} is over the limit`);
  return { ordinary: all[0]!, nasty };
}

/** CPU time per request of each body, the ordinary one's, and how many requests each was sent. */
export interface KitBodyFigures {
  ordinary: CpuRow;
  nasty: CpuRow[];
  requests: number;
}

/** Starts a kit server (support/kit-server.ts) and sends each body `requests` times, after 3 to warm up. */
export async function measureKitBodies(requests: number, log: (text: string) => void): Promise<KitBodyFigures> {
  log(`8/8 a contract-kit server's CPU time per JSON body of up to 1 MiB: ${requests} requests per body`);
  const server = await startServer({
    name: 'kit server',
    args: ['--import', 'tsx', join(import.meta.dirname, 'support', 'kit-server.ts')],
    env: { NODE_ENV: 'production' },
    probePath: '/orders',
  });
  try {
    const pid = server.child.pid!;
    const post = (body: string) => send(server.origin, 'POST', '/orders', { 'Content-Type': 'application/json' }, body);
    const measure = async (name: string, body: string): Promise<CpuRow> => {
      for (let i = 0; i < 3; i++) await post(body);
      const before = cpuMs(pid);
      let status = 0;
      for (let i = 0; i < requests; i++) status = (await post(body)).status;
      return { name, status, cpuMsPerRequest: (cpuMs(pid) - before) / requests };
    };
    const { ordinary, nasty } = kitBodies();
    const rows: CpuRow[] = [];
    for (const { name, body } of nasty) rows.push(await measure(name, body));
    return { ordinary: await measure(ordinary.name, ordinary.body), nasty: rows, requests };
  } finally {
    await server.stop();
  }
}

/** What part 8 prints. */
export function kitBodyLines({ ordinary, nasty, requests }: KitBodyFigures): string[] {
  const worst = nasty.reduce((a, b) => (b.cpuMsPerRequest > a.cpuMsPerRequest ? b : a));
  const ratio = worst.cpuMsPerRequest / ordinary.cpuMsPerRequest;
  return [
    `8. CPU time of a contract-kit server per JSON body of up to 1 MiB, its default limit (mean of ${requests} requests)`,
    ...tableLines(
      [...nasty, ordinary].map((r) => [
        r.name,
        String(r.status),
        `${r.cpuMsPerRequest.toFixed(1)} ms`,
        `${(r.cpuMsPerRequest / ordinary.cpuMsPerRequest).toFixed(2)}×`,
      ]),
      { indent: '   ', align: ['left', 'right', 'right', 'right'] },
    ),
    `   worst: ${worst.name}, ${ratio.toFixed(2)}× the ordinary body (target: at most ${TARGET_RATIO}×) ${verdict(ratio <= TARGET_RATIO)}`,
  ];
}

const HELP = `Usage: node --import tsx scripts/kit-bodies.ts [--requests N]

Part 8 of npm run adversarial alone:

${KIT_BODIES_HELP}

Options:
  --requests N   Requests per body (default 20).
  -h, --help     Show this help.
`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseCommandLine(HELP, { requests: { type: 'string', default: '20' } });
  const figures = await measureKitBodies(wholeNumberOption(HELP, 'requests', values.requests, 1), (text) =>
    process.stderr.write(`${text}\n`),
  );
  closeConnections();
  process.stdout.write(`${kitBodyLines(figures).join('\n')}\n`);
}
