import type { Pool, PoolClient } from 'pg';

/**
 * Runs `work` on one pooled connection inside BEGIN ... COMMIT, rolling back
 * if it throws. A connection whose ROLLBACK fails is destroyed rather than
 * returned to the pool, since its transaction state is unknown.
 */
export async function inTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    }
    throw error;
  } finally {
    client.release(broken);
  }
}
