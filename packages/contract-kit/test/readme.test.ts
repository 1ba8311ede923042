import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe("the README's example server", () => {
  it('is the code test/types/readme-example.ts holds, which npm run typecheck compiles', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)![1];
    const checked = readFileSync(new URL('./types/readme-example.ts', import.meta.url), 'utf8');
    expect(checked.slice(checked.indexOf('\n') + 1)).toBe(example);
  });
});

describe("the README's errors function", () => {
  it('is the code test/types/readme-errors.ts holds, which npm run typecheck compiles', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const example = /## Error bodies[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)![1];
    const checked = readFileSync(new URL('./types/readme-errors.ts', import.meta.url), 'utf8');
    expect(checked.slice(checked.indexOf('\n') + 1)).toBe(example);
  });
});
