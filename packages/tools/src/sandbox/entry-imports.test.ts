import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `@parley/tools/sandbox` is what `@parley/mcp` imports (ADR tools-0007,
// section 13): it must not reach the rest of the tools (the command
// analysis, tree-sitter, the tools themselves). Follows every import from
// the entry, type-only ones aside, and lists what it reaches.

const here = path.dirname(fileURLToPath(import.meta.url));
const source = path.resolve(here, '..');

function reached(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)) {
      const [, typeOnly, target] = match;
      if (typeOnly !== undefined || target === undefined) continue;
      if (target.startsWith('.')) {
        visit(path.resolve(path.dirname(file), target).replace(/\.js$/, '.ts'));
      } else packages.add(target);
    }
  };
  visit(entry);
  return {
    files: [...files].map((file) => path.relative(source, file)).sort(),
    packages: [...packages].sort(),
  };
}

describe('@parley/tools/sandbox', () => {
  it('reaches the sandbox builder and the secret walk only', () => {
    const { files, packages } = reached(path.join(here, 'index.ts'));
    expect(files).toEqual([
      'bash/sandbox/bubblewrap.ts',
      'bash/sandbox/key-content.ts',
      'bash/sandbox/masks.ts',
      'sandbox/index.ts',
      'shared/dangerous-paths.ts',
      'shared/paths.ts',
      'shared/secret-paths.ts',
    ]);
    expect(packages.filter((name) => !name.startsWith('node:'))).toEqual(['tinyglobby']);
  });
});
