import type { ProblemFormatter } from 'contract-kit';

/**
 * The body of every refusal and failure (a 400 with its details, a 401, a 404, a 500). Undefined:
 * the kit builds each from the error response the contract declares for its status, in its media
 * type (contract-kit's README, Errors; the server says at start how it answers each). To build
 * them yourself, write a function here: it gets the problem ({ status, code, message, details,
 * headers }) and the media type the operation declares for that status.
 */
export const errors: ProblemFormatter | undefined = undefined;
