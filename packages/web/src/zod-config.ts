// Imported first by main.tsx, so it runs before any module defines a schema.
// zod's compiled parsers probe for `Function` (eval), which the page's CSP
// refuses and reports; parsing without them needs no eval.
import { config } from 'zod/v4/core';

config({ jitless: true });
