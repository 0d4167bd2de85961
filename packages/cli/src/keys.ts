import { createApiKey } from '@parley/server';
import type { KeysArgs } from './args.js';
import { openKeyBackend } from './serve-backend.js';
import { loadServeConfig } from './serve-config.js';

/**
 * `parley keys create|list|revoke`: the API keys `parley serve` accepts,
 * kept hashed beside its sessions: the SQLite file of `--data`, or the
 * Postgres database of `--db` (or of `--config`'s `db`, with its
 * `schema`). A created key's token is printed once. Resolves to the exit
 * code.
 */
export async function runKeys(args: KeysArgs, write: (text: string) => void): Promise<number> {
  const config = args.config === undefined ? {} : await loadServeConfig(args.config);
  const db = args.db ?? (args.data === undefined ? config.db : undefined);
  const data = args.data ?? config.data;
  const backend = await openKeyBackend({
    ...(db === undefined ? {} : { db }),
    ...(config.schema === undefined ? {} : { schema: config.schema }),
    ...(data === undefined ? {} : { data }),
  });
  const { log } = backend;
  try {
    switch (args.action) {
      case 'create': {
        const { record, token } = await createApiKey(log, args.principal, args.roles);
        write(`Created key ${record.id} for ${record.principal}.\n${token}\n`);
        write('The token is shown this once; only its hash is kept.\n');
        return 0;
      }
      case 'list': {
        for (const key of await log.listKeys()) {
          const roles = key.roles.length === 0 ? '' : ` (${key.roles.join(', ')})`;
          const state = key.revokedAt === null ? 'live' : `revoked ${key.revokedAt}`;
          write(`${key.id}  ${key.principal}${roles}  created ${key.createdAt}  ${state}\n`);
        }
        return 0;
      }
      case 'revoke': {
        const revoked = await log.revokeKey(args.id, new Date().toISOString());
        write(revoked ? `Revoked key ${args.id}.\n` : `No live key ${args.id}.\n`);
        return revoked ? 0 : 1;
      }
    }
  } finally {
    await backend.close();
  }
}
