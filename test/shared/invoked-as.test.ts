import { describe, expect, it } from 'vitest';
import { invokedAs } from '../../src/shared/command-line.js';

// Usage lines and hints name the command as the user typed it: the release's `node keys.js`
// rather than an npm script that does not exist there.
describe('invokedAs', () => {
  it('names the release entry points as node runs them', () => {
    expect(invokedAs('npm run keys --', '/srv/animal-store/release/keys.js')).toBe('node keys.js');
    expect(invokedAs('npm start --', '/app/server.js')).toBe('node server.js');
  });

  it('names the npm script from the sources or the compiled service', () => {
    expect(invokedAs('npm run keys --', '/work/animal-store/src/service/keys/cli.ts')).toBe('npm run keys --');
    expect(invokedAs('npm start --', '/work/animal-store/dist/src/service/main.js')).toBe('npm start --');
    expect(invokedAs('npm start --', undefined)).toBe('npm start --');
  });
});
