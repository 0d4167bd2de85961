import { named } from './named-statement.js';
import type { NamedStatement } from './named-statement.js';
import type { ApiKeyRecord, ApiKeyStore } from '../session-log.js';

/** How a `PostgresServerLog` runs a statement (migrated first): the rows it returns. */
export type LogQuery = <Row extends object>(
  statement: string | NamedStatement,
  values?: unknown[],
) => Promise<Row[]>;

const KEY_COLUMNS = 'id, principal, roles, secret_hash, created_at, revoked_at';

type KeyRow = {
  id: string;
  principal: string;
  roles: unknown;
  secret_hash: string;
  created_at: string;
  revoked_at: string | null;
};

function keyOfRow(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    principal: row.principal,
    roles: Array.isArray(row.roles) ? row.roles.filter((role) => typeof role === 'string') : [],
    secretHash: row.secret_hash,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** The API keys of a `PostgresServerLog`, hashed, in `table` (its `parley_api_keys`). */
export class PostgresApiKeys implements ApiKeyStore {
  constructor(
    private readonly query: LogQuery,
    private readonly table: string,
  ) {}

  async addKey(record: ApiKeyRecord): Promise<void> {
    await this.query(
      `INSERT INTO ${this.table}
       (id, principal, roles, secret_hash, created_at, revoked_at)
       VALUES ($1, $2, $3::jsonb, $4, $5, $6)`,
      [
        record.id,
        record.principal,
        JSON.stringify(record.roles),
        record.secretHash,
        record.createdAt,
        record.revokedAt,
      ],
    );
  }

  async findKey(id: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.query<KeyRow>(
      named(`SELECT ${KEY_COLUMNS} FROM ${this.table} WHERE id = $1`),
      [id],
    );
    return row === undefined ? undefined : keyOfRow(row);
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    const rows = await this.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM ${this.table} ORDER BY created_at, id`,
    );
    return rows.map(keyOfRow);
  }

  async revokeKey(id: string, at: string): Promise<boolean> {
    const rows = await this.query<{ id: string }>(
      `UPDATE ${this.table} SET revoked_at = $1
       WHERE id = $2 AND revoked_at IS NULL RETURNING id`,
      [at, id],
    );
    return rows.length > 0;
  }
}
