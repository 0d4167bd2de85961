// The `parley` command run from its TypeScript source, for the repository's
// own tests: registers tsx's loader, then loads src/main.ts. Start it with
// `node --conditions=@parley/source` so the workspace packages it imports
// resolve to their source too, and no build is needed.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
