import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { apiTypesSource } from './api-types-source.js';

describe('the generated API types', () => {
  it('match the OpenAPI document the server generates now (else: npm run generate:api -w packages/web)', async () => {
    const committed = readFileSync(fileURLToPath(new URL('./openapi.ts', import.meta.url)), 'utf8');
    expect(await apiTypesSource()).toBe(committed);
  });
});
