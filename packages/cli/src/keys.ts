import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SqliteServerLog, createApiKey } from '@parley/server';
import type { KeysArgs } from './args.js';
import { databasePath } from './serve.js';

/**
 * `parley keys create|list|revoke`: the API keys `parley serve` accepts, kept
 * hashed in the same SQLite file. A created key's token is printed once.
 * Resolves to the exit code.
 */
export async function runKeys(args: KeysArgs, write: (text: string) => void): Promise<number> {
  const path = databasePath(args.data);
  await mkdir(join(path, '..'), { recursive: true });
  const log = new SqliteServerLog({ path });
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
    log.close();
  }
}
