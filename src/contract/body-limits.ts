/**
 * What the service reads of a request body, and what its mock refuses alike: at most 16 KiB (the
 * contract's PayloadTooLarge says so), at most 64 properties in one object of a JSON body (every
 * object of the contract has a handful; a body with thousands is refused as a whole), and arrays
 * and objects nested at most 16 deep (the contract's request bodies are flat objects; 16 leaves
 * room for what a version may add).
 */
export const BODY_LIMITS = { limitBytes: 16 * 1024, maxProperties: 64, maxDepth: 16 } as const;
