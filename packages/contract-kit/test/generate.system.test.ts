import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { x } from 'tinyexec';
import { run } from './run-cli.js';
import { serve } from './serve.js';

/** The calls of a generated client the test makes, loosely typed: the client is imported from a file written at run time. */
type Client = Record<'GET' | 'POST', (path: string, init: object) => Promise<{ data?: unknown; error?: unknown }>>;

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

  it("writes each stub as the project's own Prettier formats it, so that its format check passes", async () => {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(fileURLToPath(new URL('../../../node_modules/prettier', import.meta.url)), join(dir, 'node_modules', 'prettier'));
    writeFileSync(join(dir, '.prettierrc.json'), '{ "printWidth": 80, "singleQuote": true }\n');
    expect((await run(['generate'], dir)).code).toBe(0);
    const prettier = join(dir, 'node_modules', 'prettier', 'bin', 'prettier.cjs');
    const checked = await x(process.execPath, [prettier, '--check', 'src/handlers'], { nodeOptions: { cwd: dir }, throwOnError: false });
    expect(checked.exitCode, `${checked.stdout}${checked.stderr}`).toBe(0);
    expect(readFileSync(join(dir, 'src', 'handlers', 'deleteOperation.ts'), 'utf8')).toContain(
      "TypedHandler<\n  Operations['deleteOperation'],\n",
    );
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
    expect(failed.stderr).toBe('contract-kit generate: openapi.yaml: is Swagger "2.0"; convert it to OpenAPI 3.0, 3.1 or 3.2 first\n');
  });

  it('refuses, writing nothing, a contract the server would refuse at start', async () => {
    writeFileSync(
      join(dir, 'openapi.yaml'),
      "openapi: 3.1.0\ninfo: { title: x, version: '1' }\npaths:\n  /items:\n    get: { operationId: listItems, x-sunset: soon, responses: { '204': { description: ok } } }\n",
    );
    const failed = await run(['generate'], dir);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe('contract-kit generate: openapi.yaml#/paths/~1items/get: x-sunset "soon" is not a date\n');
    expect(existsSync(join(dir, 'generated'))).toBe(false);
    expect(existsSync(join(dir, 'src'))).toBe(false);
  });

  it('types a schema a $ref reaches inside another schema (its definitions) as a component of its own, which compiles', async () => {
    writeFileSync(join(dir, 'openapi.yaml'), readFileSync(fileURLToPath(new URL('./fixtures/deep-refs-3.0.yaml', import.meta.url))));
    expect((await run(['generate'], dir)).code).toBe(0);
    const types = readFileSync(join(dir, 'generated', 'openapi.ts'), 'utf8');
    expect(types).toContain('identifiers: components["schemas"]["Account_identifiers"];');
    expect(types).toContain('previous?: components["schemas"]["Account_identifiers"];');
    expect(types).toContain('balance?: components["schemas"]["Balance_amounts"];');
    expect(types).toMatch(/"application\/json": components\["schemas"\]\["owners_get_200_data_items"\];/);
    // A parameter reached by a $ref into another path's optional query: a component parameter of its own.
    expect(types).toContain('withHistory?: components["parameters"]["withHistory"];');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'NodeNext', noEmit: true, skipLibCheck: true, types: [] },
        include: ['generated/openapi.ts', 'generated/operations.ts'],
      }),
    );
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
    const typecheck = await x(process.execPath, [fileURLToPath(import.meta.resolve('typescript/bin/tsc')), '-p', dir], {
      throwOnError: false,
    });
    expect(typecheck.stdout).toBe('');
  });

  it('writes a client that sends operations sharing a URL as the server routes them (# and ? in path keys)', async () => {
    writeFileSync(join(dir, 'openapi.yaml'), readFileSync(fileURLToPath(new URL('./fixtures/shared-urls-3.0.yaml', import.meta.url))));
    symlinkSync(fileURLToPath(new URL('../../../node_modules', import.meta.url)), join(dir, 'node_modules'));
    expect((await run(['generate'], dir)).code).toBe(0);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'NodeNext', noEmit: true, skipLibCheck: true, types: [] },
        include: ['generated/client.ts'],
      }),
    );
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
    const typecheck = await x(process.execPath, [fileURLToPath(import.meta.resolve('typescript/bin/tsc')), '-p', dir], {
      throwOnError: false,
    });
    expect(typecheck.stdout).toBe('');
    const served = await serve('shared-urls-3.0.yaml', {
      handlers: {
        DescribeDomain: ({ query }) => ({ status: 200, body: { operation: 'DescribeDomain', params: query as Record<string, string> } }),
        CreateThing: () => ({ status: 200, body: { operation: 'CreateThing' } }),
        createBetaResponse: () => ({ status: 200, body: { operation: 'createBetaResponse' } }),
      },
    });
    try {
      const { createApiClient } = (await import(join(dir, 'generated', 'client.ts'))) as { createApiClient: (base: string) => Client };
      const client = createApiClient(`${served.origin}/api`);
      expect((await client.GET('/#Action=DescribeDomain', { params: { query: { DomainName: 'd' } } })).data).toEqual({
        operation: 'DescribeDomain',
        params: { Action: 'DescribeDomain', DomainName: 'd' },
      });
      const created = await client.POST('/#X-Amz-Target=Things.CreateThing', {
        params: { header: { 'X-Amz-Target': 'Things.CreateThing' } },
        body: { Name: 'a' },
        headers: { 'Content-Type': 'application/x-amz-json-1.1' },
      });
      expect(created.data).toEqual({ operation: 'CreateThing' });
      expect((await client.POST('/responses?beta=true', {})).data).toEqual({ operation: 'createBetaResponse' });
    } finally {
      await served.close();
    }
  });

  it('answers --help, and an unknown option with its usage', async () => {
    expect((await run(['generate', '--help'], dir)).stdout).toMatch(/^Usage: contract-kit generate/);
    const wrong = await run(['generate', '--nope'], dir);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^contract-kit generate: Unknown option '--nope'/);
  });
});
