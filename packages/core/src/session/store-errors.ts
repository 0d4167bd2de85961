import { ParleyError } from '../errors/index.js';

/**
 * An audit record given to `SessionStore.save` (or read back from a store)
 * does not have the documented shape. `field` names the bad field (`''` for
 * the record itself). The save it came with wrote nothing.
 */
export class InvalidAuditRecordError extends ParleyError {
  readonly field: string;
  constructor(field: string, problem: string, options?: { cause?: unknown }) {
    super(
      'invalid_audit_record',
      `Invalid audit record: ${field === '' ? '(record)' : field} ${problem}.`,
      options,
    );
    this.field = field;
  }
}

/**
 * A durable store's database schema cannot be used by this build: it was
 * migrated by a newer build, or its recorded migrations differ from this
 * build's ordered list. The store refuses to open rather than guess.
 */
export class StoreMigrationError extends ParleyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('store_migration', message, options);
  }
}

/**
 * The session store lacks an optional method a feature needs (e.g.
 * `listDue` for `Sessions.expireDue`, `listAudit` for `Sessions.audit`).
 */
export class StoreCapabilityError extends ParleyError {
  readonly method: string;
  constructor(method: string, neededBy: string) {
    super(
      'store_capability',
      `The session store does not implement ${method}, which ${neededBy} needs.`,
    );
    this.method = method;
  }
}
