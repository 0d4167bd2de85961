import { describe, expect, it } from 'vitest';
import {
  AUDIT_DECISIONS,
  digestToolInput,
  isAuditDecision,
  parseAuditRecord,
} from './audit-record.js';
import { fromAuditRecordRow, toAuditRecordRow } from './audit-record-row.js';
import { InvalidAuditRecordError } from './store-errors.js';

const valid = {
  sessionId: 's1',
  replyId: 'r1',
  toolCallId: 'tc1',
  toolName: 'Bash',
  decision: 'confirmed',
  inputDigest: '0'.repeat(64),
  approver: 'ada',
  at: '2025-06-01T12:00:00.000Z',
};

function fieldOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidAuditRecordError) return error.field;
    throw error;
  }
  return undefined;
}

describe('digestToolInput', () => {
  it('hashes raw input JSON text as SHA-256 hex', async () => {
    expect(await digestToolInput('{}')).toBe(
      '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
    );
    expect(await digestToolInput('')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it('hashes a parsed input as its JSON text, UTF-8 encoded', async () => {
    expect(await digestToolInput({ command: 'ls' })).toBe(
      await digestToolInput('{"command":"ls"}'),
    );
    expect(await digestToolInput({ path: 'é' })).not.toBe(await digestToolInput({ path: 'e' }));
  });
});

describe('parseAuditRecord', () => {
  it('accepts a valid record and copies it, detail through JSON', () => {
    const detail = { reason: 'ok', nested: { at: 1 } };
    const parsed = parseAuditRecord({ ...valid, detail }, 's1');
    expect(parsed).toStrictEqual({ ...valid, detail });
    expect(parsed.detail).not.toBe(detail);
    expect(parseAuditRecord({ ...valid, approver: null }, 's1')).toStrictEqual({
      ...valid,
      approver: null,
    });
  });

  it('knows every documented decision and nothing else', () => {
    expect(AUDIT_DECISIONS).toHaveLength(13);
    for (const decision of AUDIT_DECISIONS) expect(isAuditDecision(decision)).toBe(true);
    expect(isAuditDecision('approved')).toBe(false);
    expect(isAuditDecision(undefined)).toBe(false);
  });

  it.each([
    ['', null],
    ['', []],
    ['sessionId', { ...valid, sessionId: 'other' }],
    ['sessionId', { ...valid, sessionId: 7 }],
    ['replyId', { ...valid, replyId: '' }],
    ['toolCallId', { ...valid, toolCallId: undefined }],
    ['toolName', { ...valid, toolName: null }],
    ['decision', { ...valid, decision: 'approved' }],
    ['inputDigest', { ...valid, inputDigest: 'ABC' }],
    ['inputDigest', { ...valid, inputDigest: 'A'.repeat(64) }],
    ['approver', { ...valid, approver: '' }],
    ['approver', { ...valid, approver: undefined }],
    ['at', { ...valid, at: '2025-06-01T12:00:00Z' }],
    ['at', { ...valid, at: '2025-02-30T12:00:00.000Z' }],
    ['at', { ...valid, at: 1 }],
    ['detail', { ...valid, detail: [1] }],
    ['detail', { ...valid, detail: 'text' }],
    ['detail', { ...valid, detail: { big: 1n } }],
  ])('refuses a bad %s', (field, value) => {
    expect(fieldOf(() => parseAuditRecord(value, 's1'))).toBe(field);
  });

  it('carries a stable code', () => {
    expect(() => parseAuditRecord({ ...valid, decision: 'x' }, 's1')).toThrow(
      expect.objectContaining({ code: 'invalid_audit_record', name: 'InvalidAuditRecordError' }),
    );
  });
});

describe('audit record rows', () => {
  it('map a record to snake_case columns and back', () => {
    const record = parseAuditRecord({ ...valid, detail: { reason: 'ok' } }, 's1');
    const row = toAuditRecordRow(record);
    expect(row).toStrictEqual({
      session_id: 's1',
      reply_id: 'r1',
      tool_call_id: 'tc1',
      tool_name: 'Bash',
      decision: 'confirmed',
      input_digest: '0'.repeat(64),
      approver: 'ada',
      at: '2025-06-01T12:00:00.000Z',
      detail: '{"reason":"ok"}',
    });
    expect(fromAuditRecordRow(row, 's1')).toStrictEqual(record);
    const bare = parseAuditRecord(valid, 's1');
    expect(toAuditRecordRow(bare).detail).toBeNull();
    expect(fromAuditRecordRow(toAuditRecordRow(bare), 's1')).toStrictEqual(bare);
  });

  it('refuse a row edited into something that is not a record', () => {
    const row = toAuditRecordRow(parseAuditRecord(valid, 's1'));
    expect(fieldOf(() => fromAuditRecordRow({ ...row, detail: '{oops' }, 's1'))).toBe('detail');
    expect(fieldOf(() => fromAuditRecordRow({ ...row, decision: 'maybe' }, 's1'))).toBe('decision');
  });
});
