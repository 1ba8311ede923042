import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from './run-cli.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'contract-kit-generate-'));
  writeFileSync(join(dir, 'openapi.yaml'), readFileSync(fileURLToPath(new URL('./fixtures/rail-3.1.yaml', import.meta.url))));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('contract-kit generate', () => {
  it('writes the types, the handler map, a client and a stub per operation, named as the server names them', async () => {
    const { code, stdout } = await run(['generate'], dir);
    expect(code).toBe(0);
    for (const file of ['openapi.ts', 'operations.ts', 'handlers.ts', 'client.ts'])
      expect(existsSync(join(dir, 'generated', file)), file).toBe(true);
    const handlers = readFileSync(join(dir, 'generated', 'handlers.ts'), 'utf8');
    expect(handlers).toContain("import { getStations } from '../src/handlers/getStations.js';");
    expect(handlers).toContain('satisfies Handlers<Operations, Context>');
    const stub = readFileSync(join(dir, 'src', 'handlers', 'deleteOperation.ts'), 'utf8');
    expect(stub).toContain(
      "export const deleteOperation: TypedHandler<Operations['deleteOperation'], Context> = notImplemented('deleteOperation', 'src/handlers/deleteOperation.ts');",
    );
    expect(stdout).toContain('wrote src/handlers/createBooking.ts (a stub answering 501 until you write it)');
  });

  it('never overwrites a handler, and --check says what is out of date', async () => {
    await run(['generate'], dir);
    const mine = join(dir, 'src', 'handlers', 'getStations.ts');
    writeFileSync(mine, '// written by hand\n');
    expect((await run(['generate', '--check'], dir)).code).toBe(0);
    const contract = join(dir, 'openapi.yaml');
    writeFileSync(contract, readFileSync(contract, 'utf8').replace('operationId: create-booking', 'operationId: book'));
    const checked = await run(['generate', '--check'], dir);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain('out of date: generated/handlers.ts');
    expect(checked.stderr).toContain('no handler file: src/handlers/book.ts');
    await run(['generate'], dir);
    expect(readFileSync(mine, 'utf8')).toBe('// written by hand\n');
    expect(existsSync(join(dir, 'src', 'handlers', 'book.ts'))).toBe(true);
  });

  it('names a handler file whose operation the contract no longer has, and leaves it', async () => {
    await run(['generate'], dir);
    writeFileSync(
      join(dir, 'openapi.yaml'),
      readFileSync(join(dir, 'openapi.yaml'), 'utf8').replace('operationId: get-stations', 'operationId: listStations'),
    );
    const again = await run(['generate'], dir);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      'src/handlers/getStations.ts is the handler of no operation of openapi.yaml: delete it, or rename it after one',
    );
    expect(existsSync(join(dir, 'src', 'handlers', 'getStations.ts'))).toBe(true);
  });

  it('names the place of a contract it cannot read', async () => {
    writeFileSync(join(dir, 'openapi.yaml'), 'swagger: "2.0"\ninfo: { title: x, version: "1" }\npaths: {}\n');
    const failed = await run(['generate'], dir);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe('contract-kit generate: openapi.yaml: is Swagger "2.0"; convert it to OpenAPI 3.0 or 3.1 first\n');
  });

  it('refuses, writing nothing, a contract the server would refuse at start', async () => {
    writeFileSync(
      join(dir, 'openapi.yaml'),
      "openapi: 3.1.0\ninfo: { title: x, version: '1' }\npaths:\n  /items?beta=true:\n    get: { operationId: listItemsBeta, responses: { '204': { description: ok } } }\n",
    );
    const failed = await run(['generate'], dir);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^contract-kit generate: openapi\.yaml#\/paths\/~1items\?beta=true/);
    expect(existsSync(join(dir, 'generated'))).toBe(false);
    expect(existsSync(join(dir, 'src'))).toBe(false);
  });

  it('answers --help, and an unknown option with its usage', async () => {
    expect((await run(['generate', '--help'], dir)).stdout).toMatch(/^Usage: contract-kit generate/);
    const wrong = await run(['generate', '--nope'], dir);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^contract-kit generate: Unknown option '--nope'/);
  });
});
