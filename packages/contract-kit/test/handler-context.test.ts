import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyHandler } from 'contract-kit';
import { serve } from './serve.js';

/** One context object for every request, as `contract-kit init`'s src/context.ts gave it: a class's, whose getter reads a private field. */
class Services {
  readonly #greeting = 'note';
  get greeting(): string {
    return this.#greeting;
  }
}
const shared = new Services();

const handlers: Record<string, AnyHandler> = {
  getNote: async ({ path }, context) => {
    const { greeting } = context as unknown as typeof shared;
    // The later request is answered first: each must still see its own request.
    await sleep(path.noteId === 1 ? 60 : 0);
    return {
      status: 200,
      body: { id: path.noteId, text: `${greeting} ${context.request.originalUrl}${context.signal.aborted ? ' aborted' : ''}` },
    };
  },
};

let notes: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  notes = await serve('notes-3.2.yaml', { handlers, warmUp: 'lazy', context: () => shared });
});
afterAll(() => notes.close());

describe("a handler's context", () => {
  it("is the request's own where the application gives every request the same object, which it is told of", async () => {
    const [first, second] = await Promise.all(['/api/notes/1', '/api/notes/2'].map((path) => notes.fetch(path)));
    expect(await first!.json()).toEqual({ id: 1, text: 'note /api/notes/1' });
    expect(await second!.json()).toEqual({ id: 2, text: 'note /api/notes/2' });
    expect(notes.warnings.join('\n')).toMatch(/the context function gives each request the same object/);
  });
});
