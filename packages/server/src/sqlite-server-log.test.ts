import { describeSessionLogConformance } from '../test/session-log-conformance.js';
import { SqliteServerLog } from './sqlite-server-log.js';

describeSessionLogConformance('SqliteServerLog', () => {
  const log = new SqliteServerLog({ path: ':memory:' });
  return Promise.resolve({ log, close: () => Promise.resolve(log.close()) });
});
