import { parse } from 'node:url';
import { serve, serveOptionsFromEnv, SettingError, type ServeOptions } from 'contract-kit';
import { createApp } from './app.js';

// The validator calls url.parse() on every request, and Node 24 and 26 take a stack trace on
// each call until they have warned of it (DEP0169) once: warned here, silenced.
const silenced = process.noDeprecation;
process.noDeprecation = true;
parse('/');
process.noDeprecation = silenced;

// PORT (default 3000), HOST, the timeouts and connection caps: see serve in contract-kit's README.
let options: ServeOptions;
try {
  options = serveOptionsFromEnv(process.env);
} catch (error) {
  if (!(error instanceof SettingError)) throw error;
  console.error(error.message);
  process.exit(2);
}
// Stops on SIGTERM and SIGINT within SHUTDOWN_TIMEOUT_MS (10 s by default), then exits; give it
// onStop to close what the app opened (a database pool) before that. It says when every
// operation's validator is compiled (ready), and how long that took. A request Node cannot parse
// is answered in the contract's error body (answerOf). A stop ends the streamed answers being sent
// (endStreams), which would otherwise hold it until SHUTDOWN_TIMEOUT_MS.
const { app, ready, answerOf, endStreams } = await createApp();
const server = await serve(app, { ...options, ready, answerOf, onStopping: endStreams });
console.log(`Listening on ${server.origin}`);
