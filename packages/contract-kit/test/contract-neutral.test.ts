import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

/** The package's source and the files it ships with it: what an adopting team reads. */
function shipped(): string[] {
  const source = readdirSync(join(PACKAGE, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join('src', file));
  return [...source, 'README.md', 'redocly.kit.yaml'];
}

describe('contract-kit', () => {
  // It reads everything from the contract it is given: the Animal Store is one user of it, and
  // its operations, schemas and words appear nowhere in it, not even as examples.
  it("names nothing of the Animal Store's contract", () => {
    const found = shipped().flatMap((file) =>
      readFileSync(join(PACKAGE, file), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          /\b(pets?|petId|animals?|Animal Store|listPets|createPet|getPet)\b|\bPet[A-Z]/i.test(line)
            ? [`${file}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(found).toEqual([]);
  });
});
