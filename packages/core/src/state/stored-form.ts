import type { PermissionContext } from '../permission/index.js';
import type { AgentState, ReplyState } from './types.js';

/** The lists of a `PermissionContext` that the stored form leaves out when empty. */
const permissionLists = ['workingDirectories', 'allowRules', 'denyRules', 'askRules'] as const;

/** The lists of a `ReplyState` that the stored form leaves out when empty. */
const replyLists = ['executing'] as const;

/** `T` with the fields `K` optional. */
type Omittable<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

/**
 * An `AgentState` as stored (schema version 2 on): the same data, with the
 * empty lists of the permission context and of the reply left out.
 */
export type StoredAgentState = Omit<AgentState, 'permission' | 'reply'> & {
  permission: Omittable<PermissionContext, (typeof permissionLists)[number]>;
  reply: Omittable<ReplyState, (typeof replyLists)[number]> | null;
};

/**
 * The stored form of a state, built shallowly: the sub-objects that lose no
 * field are the state's own (never copied), so it is cheap enough for every
 * save. Only the lists named above, of `permission` and `reply`, are left
 * out; a list of the same name elsewhere, say in metadata, is kept.
 */
export function compactAgentState(state: AgentState): StoredAgentState {
  const { permission, reply } = state;
  return {
    ...state,
    permission: withoutEmptyLists(permission, permissionLists),
    reply: reply === null ? null : withoutEmptyLists(reply, replyLists),
  };
}

function withoutEmptyLists<T extends object, K extends keyof T>(
  value: T,
  lists: readonly K[],
): Omittable<T, K> {
  if (!lists.some((key) => isEmptyList(value[key]))) return value;
  // Built by adding the kept fields (in their order), not by deleting from a
  // copy: \`delete\` turns the copy into a slow dictionary-mode object, which
  // the save's \`JSON.stringify\` then reads.
  const copy: Record<string, unknown> = {};
  const omitted: readonly PropertyKey[] = lists;
  for (const [key, field] of Object.entries(value)) {
    if (!(omitted.includes(key) && isEmptyList(field))) copy[key] = field;
  }
  return copy as Omittable<T, K>;
}

function isEmptyList(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0;
}
