import { createRequire } from 'node:module';
import type { HttpProblem } from './problems.js';

/**
 * What the names of an error body's properties say they hold (a status, a code, a message, the
 * list of invalid fields), and the words a problem's status and code may be written as.
 */

// Required, not imported: see problems.ts (an ES import of node:http loads undici).
const { STATUS_CODES } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/** A property name as compared: lower case, without `_` and `-` (`error_description` → `errordescription`). */
export const key = (name: string) => name.toLowerCase().replace(/[-_]/g, '');

// Names (as `key` writes them) of a property that holds the status, a code, a message, the list of
// invalid fields, the field an item of that list is about, the error object.
export const STATUS_NAMES = new Set(['status', 'statuscode', 'httpstatus', 'httpstatuscode', 'httpcode', 'code', 'errorcode']);
export const CODE_NAMES = new Set(['code', 'errorcode', 'error', 'errortype', 'kind', 'reason', 'status', 'type']);
export const MESSAGE_NAMES = new Set(
  'message,msg,detail,details,description,errormessage,errordescription,errordetail,text,reason,cause,info,error,title'.split(','),
);
export const LIST_NAMES = new Set(
  'errors,details,fielderrors,violations,issues,validationerrors,invalidparams,invalidparameters,causes,problems,messages,items'.split(','),
);
export const FIELD_NAMES = new Set('field,name,parameter,param,path,pointer,location,loc,property,key,target,source,attribute'.split(','));
export const OBJECT_NAMES = new Set(['error', 'err', 'fault', 'problem']);

/** gRPC's names of the statuses HTTP APIs built on it answer with (Google's `status` field). */
const GRPC: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
};

/** A status's reason phrase (`Not Found`), `Error` for one HTTP names none. */
export const reasonPhrase = (status: number) => STATUS_CODES[status] ?? 'Error';

/** The words a status and a code may be written as, most fitting first: `not_found`, `NOT_FOUND`, `Not Found`, `404`. */
export function codeWords(problem: HttpProblem): string[] {
  const reason = reasonPhrase(problem.status);
  return [problem.code, reason.toUpperCase().replace(/\W+/g, '_'), GRPC[problem.status] ?? '', reason, String(problem.status)].filter(
    Boolean,
  );
}
