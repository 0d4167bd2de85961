// `npm run generate:api -w packages/web`: writes src/api/openapi.ts, the
// types of the HTTP API, from the OpenAPI document the server generates
// from the zod schemas that validate its requests. A test
// (src/api/openapi.test.ts) fails when the file is behind the server.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { apiTypesSource } from '../src/api/api-types-source.js';

const target = fileURLToPath(new URL('../src/api/openapi.ts', import.meta.url));
await writeFile(target, await apiTypesSource());
