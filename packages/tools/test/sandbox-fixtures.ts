import { readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import path from 'node:path';

/**
 * What the sandbox tests share: git's identity and dates fixed (so two
 * repositories built the same way have the same hashes), the read
 * corpus's Bash commands, and a loopback listener that counts connections.
 */

/** Fixed author, committer and dates, and no system config. */
export const GIT_ENV = {
  GIT_AUTHOR_NAME: 'A',
  GIT_AUTHOR_EMAIL: 'a@example.test',
  GIT_COMMITTER_NAME: 'A',
  GIT_COMMITTER_EMAIL: 'a@example.test',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1',
};

type ReadEntry = { tool: string; input: { command?: unknown }; expect: string };

/** The Bash commands of the read corpus (fixtures/read-corpus.json) that expect `expected`. */
export function readCorpusCommands(expected: 'allow' | 'ask'): string[] {
  const file = path.join(import.meta.dirname, 'fixtures', 'read-corpus.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { reads: ReadEntry[] }).reads
    .filter((entry) => entry.tool === 'Bash' && entry.expect === expected)
    .map((entry) => entry.input.command)
    .filter((command): command is string => typeof command === 'string');
}

/** A TCP listener on 127.0.0.1 that counts the connections it gets. */
export type LoopbackListener = { port: number; connections(): number; close(): Promise<void> };

/** Starts a `LoopbackListener` on a free port. */
export async function loopbackListener(): Promise<LoopbackListener> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        // A client that never closes its end would hold `close` open.
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
