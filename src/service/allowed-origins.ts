/**
 * Origins that may call the service from a browser in development and in the sandbox: any port
 * of localhost and of 127.0.0.1 (a dev server such as Vite's picks its own), as contract-kit's
 * originAllowed matches them.
 */
export const LOCAL_ORIGINS: readonly string[] = ['http://localhost:*', 'http://127.0.0.1:*'];
