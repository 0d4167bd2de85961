import type Database from 'better-sqlite3';
import type { ApiKeyRecord, ApiKeyStore } from '../session-log.js';

type KeyRow = {
  id: string;
  principal: string;
  roles: string;
  secret_hash: string;
  created_at: string;
  revoked_at: string | null;
};

function keyOfRow(row: KeyRow): ApiKeyRecord {
  const roles: unknown = JSON.parse(row.roles);
  return {
    id: row.id,
    principal: row.principal,
    roles: Array.isArray(roles) ? roles.filter((role) => typeof role === 'string') : [],
    secretHash: row.secret_hash,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** The API keys of a `SqliteServerLog`, hashed, in its table `parley_api_keys`. */
export class SqliteApiKeys implements ApiKeyStore {
  private readonly findStatement: Database.Statement<[string], KeyRow>;

  constructor(private readonly database: Database.Database) {
    this.findStatement = database.prepare('SELECT * FROM parley_api_keys WHERE id = ?');
  }

  addKey(record: ApiKeyRecord): Promise<void> {
    this.database
      .prepare(
        `INSERT INTO parley_api_keys (id, principal, roles, secret_hash, created_at, revoked_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(
        record.id,
        record.principal,
        JSON.stringify(record.roles),
        record.secretHash,
        record.createdAt,
        record.revokedAt,
      );
    return Promise.resolve();
  }

  findKey(id: string): Promise<ApiKeyRecord | undefined> {
    const row = this.findStatement.get(id);
    return Promise.resolve(row === undefined ? undefined : keyOfRow(row));
  }

  listKeys(): Promise<ApiKeyRecord[]> {
    const rows = this.database
      .prepare<[], KeyRow>('SELECT * FROM parley_api_keys ORDER BY created_at, id')
      .all();
    return Promise.resolve(rows.map(keyOfRow));
  }

  revokeKey(id: string, at: string): Promise<boolean> {
    const result = this.database
      .prepare('UPDATE parley_api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
      .run(at, id);
    return Promise.resolve(result.changes > 0);
  }
}
