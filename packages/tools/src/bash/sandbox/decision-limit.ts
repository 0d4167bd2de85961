import type { AllowedBy, PermissionMode } from '@parley/core';
import { isEditMode } from '../../shared/file-permissions.js';

/**
 * Whether the decision that let a call run permits it to write (ADR
 * tools-0007, "the policy follows the decision"). A call allowed as
 * read-only, or unasked in a mode that writes nothing unasked (`default`,
 * `explore`), does not: it runs in the read-only policy whatever a second
 * reading of the line says (`echo x 1<notes.txt >/dev/stdout` reads as a
 * write to `/dev/stdout`, which is granted, and would truncate `notes.txt`).
 * A rule, a person's yes, or a mode that writes unasked (`accept_edits`,
 * `dont_ask`, `bypass`) does; so does sandbox auto-allow, whose allow is
 * the write policy itself. Not said (a tool run outside an agent): the
 * analysis decides, as before.
 */
export function decisionPermitsWrites(
  allowedBy: AllowedBy | undefined,
  mode: PermissionMode,
  autoAllow: boolean,
): boolean {
  switch (allowedBy) {
    case undefined:
    case 'rule':
    case 'user':
      return true;
    case 'readOnly':
      return false;
    case 'mode':
      return isEditMode(mode) || mode === 'bypass' || autoAllow;
  }
}
