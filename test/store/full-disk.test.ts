import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// On a full disk, POST must answer 503 (not 500 internal_error) and /readyz must not say
// ready. The SQLite file lives here on a real, small file system (tmpfs, 2 MiB) that the test
// fills to the last byte. Mounting needs root (as in CI); elsewhere the test says it is skipped.

const mountPoint = mkdtempSync(join(tmpdir(), 'animal-store-full-disk-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mountPoint], { stdio: 'ignore' });
  mounted = true;
} catch {
  console.warn(`Full-disk test skipped: cannot mount a small tmpfs at ${mountPoint} (needs root).`);
}

let server: TestServer;
let key: string;
const filler = join(mountPoint, 'filler');

beforeAll(async () => {
  if (!mounted) return;
  server = await startTestServer({ store: SqliteStore.open(join(mountPoint, 'store.db')) });
  key = await server.newKey('business');
});
afterAll(async () => {
  await server?.close();
  if (mounted) execFileSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Writes to `filler` until the file system has no byte left. */
function fillTheDisk(): void {
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    for (let size = 32 * 1024; size >= 1; size = Math.floor(size / 2)) {
      try {
        for (;;) writeSync(fd, chunk.subarray(0, size));
      } catch {
        // smaller pieces next
      }
    }
  } finally {
    closeSync(fd);
  }
}

describe.skipIf(!mounted)('a full disk under the SQLite store', () => {
  it('answers POST with 503 and Retry-After, says not ready, and recovers when space comes back', async () => {
    const post = (i: number) =>
      fetch(`${server.baseUrl}/pets`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `Filler ${i} ${'x'.repeat(80)}`, categoryId: 1 }),
      });
    expect((await post(0)).status).toBe(201);
    fillTheDisk();
    // Not ready as soon as the disk is full, before any client's write is refused, and however often asked.
    for (let i = 0; i < 5; i++) expect((await fetch(`${server.origin}/readyz`)).status).toBe(503);
    // The WAL may still hold free space in pages it has: write until the disk says no.
    let refused: Response | undefined;
    for (let i = 1; i <= 500 && !refused; i++) {
      const response = await post(i);
      if (response.status !== 201) refused = response;
      else await response.arrayBuffer();
    }
    expect(refused?.status).toBe(503);
    expect(((await refused!.json()) as { code: string }).code).toBe('service_unavailable');
    expect(refused!.headers.get('retry-after')).not.toBeNull();
    for (let i = 0; i < 5; i++) expect((await fetch(`${server.origin}/readyz`)).status).toBe(503);
    // Reads go on.
    expect((await fetch(`${server.baseUrl}/pets?limit=1`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);

    rmSync(filler);
    expect((await fetch(`${server.origin}/readyz`)).status).toBe(200);
    expect((await post(1000)).status).toBe(201);
  });
});
