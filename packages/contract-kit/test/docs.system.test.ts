import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from './run-cli.js';

const LIBRARY = readFileSync(fileURLToPath(new URL('./fixtures/library-3.0.yaml', import.meta.url)), 'utf8');
/** A page around Redoc with a mark of its own, as a project's template would have. */
const TEMPLATE = `<!DOCTYPE html>
<html><head><meta charset="utf-8" /><title>{{title}}</title><meta name="project-mark" content="from-the-template" />{{{redocHead}}}</head>
<body>{{{redocHTML}}}</body></html>
`;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'contract-kit-docs-'));
  writeFileSync(join(dir, 'openapi.yaml'), LIBRARY);
  writeFileSync(join(dir, 'page.hbs'), TEMPLATE);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('contract-kit docs', () => {
  it('renders the page in the template --template names, and with --compress writes FILE.br and FILE.gz of it', async () => {
    const built = await run(['docs', '--template', 'page.hbs', '--compress', '--output', 'out/index.html'], dir);
    expect(built.code, built.stderr).toBe(0);
    const page = readFileSync(join(dir, 'out', 'index.html'));
    expect(page.toString()).toContain('<meta name="project-mark" content="from-the-template" />');
    expect(page.toString()).toContain('<title>Library loans</title>');
    expect(brotliDecompressSync(readFileSync(join(dir, 'out', 'index.html.br'))).equals(page)).toBe(true);
    expect(gunzipSync(readFileSync(join(dir, 'out', 'index.html.gz'))).equals(page)).toBe(true);
    expect(built.stdout).toContain('Compressed copies written beside it: out/index.html.br, out/index.html.gz');
  }, 120_000);

  it("takes the template and compression from the configuration's docs section, and refuses a template that is not there", async () => {
    writeFileSync(join(dir, 'contract-kit.config.mjs'), "export default { docs: { template: 'page.hbs', compress: true } };\n");
    const built = await run(['docs'], dir);
    expect(built.code, built.stderr).toBe(0);
    expect(readFileSync(join(dir, 'build', 'docs', 'index.html'), 'utf8')).toContain('from-the-template');
    expect(existsSync(join(dir, 'build', 'docs', 'index.html.br'))).toBe(true);
    const missing = await run(['docs', '--template', 'nowhere.hbs'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('there is no template at nowhere.hbs');
  }, 120_000);
});
