import { describe, expect, it } from 'vitest';
import { invokedAs } from '../../src/shared/command-line.js';

// Usage lines and hints name the command as the user can type it where they are: the release's
// `node keys.js` rather than an npm script that does not exist there.
describe('invokedAs', () => {
  it('names the release entry points as node runs them from the folder the command was started in', () => {
    expect(invokedAs('npm run keys --', '/srv/animal-store/release/keys.js', '/srv/animal-store/release')).toBe('node keys.js');
    expect(invokedAs('npm start --', '/app/server.js', '/app')).toBe('node server.js');
    // Started from the repository (node release/server.js): the hint names the path from there.
    expect(invokedAs('npm run keys --', '/work/animal-store/release/keys.js', '/work/animal-store')).toBe('node release/keys.js');
    expect(invokedAs('npm start --', '/opt/the store/server.js', '/home/op')).toBe("node '../../opt/the store/server.js'");
  });

  it('names the npm script from the sources or the compiled service', () => {
    expect(invokedAs('npm run keys --', '/work/animal-store/src/service/keys/cli.ts')).toBe('npm run keys --');
    expect(invokedAs('npm start --', '/work/animal-store/dist/src/service/main.js')).toBe('npm start --');
    expect(invokedAs('npm start --', undefined)).toBe('npm start --');
  });
});
