/** The verbatim decision messages of SPEC section 6. */
export const permissionMessages = {
  denyRule: (tool: string) => `Permission to use ${tool} has been denied`,
  ruleReason: (content: string | null, tool: string) => `Rule: ${content ?? tool}`,
  ask: (tool: string) => `Permission required for ${tool}`,
  readOnly: (tool: string) => `Permission granted for ${tool} (read-only invocation)`,
  allowRule: (tool: string) => `Permission granted for ${tool}`,
  bypass: (tool: string) => `Permission granted for ${tool} (bypass mode)`,
  explore: (tool: string) => `Permission denied for ${tool} (explore mode is read-only)`,
  dontAsk: (tool: string) => `Permission denied for ${tool} (dont_ask mode - user not available)`,
  dontAskConverted: (tool: string) =>
    `Permission denied for ${tool} (dont_ask mode - ASK converted to DENY, user not available)`,
} as const;
