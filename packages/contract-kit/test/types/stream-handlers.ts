// Type-level tests of streamed answers (OpenAPI 3.2 itemSchema), checked by `npm run typecheck`:
// each @ts-expect-error proves that the line after it does not compile.
import type { TypedHandler } from 'contract-kit';
import type { Operations } from './notes/operations.js';

// An async generator of the items itemSchema types, for each media type the status declares.
export const exportNotes: TypedHandler<Operations['exportNotes']> = () => ({
  status: 200,
  body: (async function* () {
    yield { id: 1, text: 'one' };
  })(),
});
export const exportArray: TypedHandler<Operations['exportNotes']> = () => ({
  status: 200,
  contentType: 'application/json-seq',
  body: [{ id: 1, text: 'one', pinned: null }],
});

// A server-sent event: its fields as itemSchema types them.
export const followNotes: TypedHandler<Operations['followNotes']> = (_input, { signal }) => ({
  status: 200,
  body: (async function* () {
    if (!signal.aborted) yield { event: 'added' as const, id: '1', data: '{"id":1,"text":"one"}' };
  })(),
});

// @ts-expect-error a Note's text is a string
export const wrongItem: TypedHandler<Operations['exportNotes']> = () => ({ status: 200, body: [{ id: 1, text: 2 }] });

// @ts-expect-error an event's data is a string (JSON text, as its contentMediaType says)
export const wrongEvent: TypedHandler<Operations['followNotes']> = () => ({ status: 200, body: [{ data: { id: 1 } }] });

// @ts-expect-error the event is added or removed
export const wrongEventName: TypedHandler<Operations['followNotes']> = () => ({ status: 200, body: [{ event: 'moved', data: '{}' }] });

// A streamed request: its items, typed from itemSchema, as they are read.
export const importNotes: TypedHandler<Operations['importNotes']> = async ({ body }) => {
  const texts: string[] = [];
  for await (const note of body) texts.push(note.text);
  return { status: 204 };
};

export const wrongImport: TypedHandler<Operations['importNotes']> = async ({ body }) => {
  // @ts-expect-error a NewNote has no id
  for await (const note of body) void note.id;
  return { status: 204 };
};
