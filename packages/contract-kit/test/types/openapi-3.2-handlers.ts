// Type-level tests of the operations and parameters OpenAPI 3.2 adds, checked by `npm run
// typecheck`: each @ts-expect-error proves that the line after it does not compile.
import type { TypedHandler } from 'contract-kit';
import type { Operations } from './notes/operations.js';

// A QUERY operation: its body and answers as the contract types them.
export const queryNotes: TypedHandler<Operations['queryNotes']> = () => ({ status: 200 });

// An additionalOperations one (LINK): its path parameter typed.
export const linkNote: TypedHandler<Operations['linkNote']> = ({ path }) => {
  const id: number = path.noteId;
  return id > 0 ? { status: 204 } : { status: 204 };
};

// @ts-expect-error LINK answers 204 alone
export const wrongLink: TypedHandler<Operations['linkNote']> = () => ({ status: 200 });

// A parameter in: querystring: the query parameters its schema names, typed.
export const searchNotes: TypedHandler<Operations['searchNotes']> = ({ query }) => {
  const text: string = query.text;
  const limit: number | undefined = query.limit;
  const tags: string[] | undefined = query.tag;
  return { status: 200, body: [{ id: limit ?? 1, text: `${text} ${tags?.join(',') ?? ''}` }] };
};

// @ts-expect-error the querystring names no such key
export const wrongKey: TypedHandler<Operations['searchNotes']> = ({ query }) => ({ status: 200, body: [{ id: 1, text: query.other }] });
