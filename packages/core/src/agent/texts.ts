/** Verbatim strings the model or the user reads (SPEC sections 1, 3, 5, 9). */
export const agentTexts = {
  waiting: "I'm waiting for your permission or the external execution to finish.",
  interrupted: 'I notice the interruption. How can I help you?',
  exceeded: 'The maximum reasoning-acting iterations are exceeded.',
  alreadyAllowed: 'Already allowed by user confirmation.',
  toolNotFound: (name: string) => `ToolNotFoundError: The tool named '${name}' doesn't exist.`,
  invalidInput: (name: string, reason: string) =>
    `Input validation failed for tool '${name}': ${reason}`,
  cutOff: (name: string) =>
    `Your output was cut off by the output token limit before the call to tool '${name}' was complete, so it was not run. Call it again with complete input, shorter if you can (split large content over several calls).`,
  denied: (name: string, reason?: string) =>
    reason === undefined || reason.trim() === ''
      ? `<system-reminder>The execution of tool "${name}" is denied by user!</system-reminder>`
      : `<system-reminder>The execution of tool "${name}" is denied by user! Reason: ${reason}</system-reminder>`,
  toolInterrupted:
    '<system-reminder>The tool call has been interrupted by the user.</system-reminder>',
  outcomeUnknown:
    '<system-reminder>The tool call was interrupted: the process stopped while the tool was running, so its outcome is unknown. Check before running it again.</system-reminder>',
  parkedNoEvent: (asking: number, submitted: number) =>
    `Agent is waiting for ${asking} tool calls and external execution results for ${submitted} tool calls, but received no event.`,
  notWaitingConfirm: (event: string) =>
    `Agent is not waiting for user confirmation, but received UserConfirmResultEvent: ${event}`,
  notWaitingExternal: (event: string) =>
    `Agent is not waiting for external execution results, but received ExternalExecutionResultEvent: ${event}`,
  unknownConfirmIds: (ids: string[]) =>
    `Received UserConfirmResultEvent with tool call ids ${JSON.stringify(ids)} that are not waiting for confirmation.`,
  renamedConfirm: (id: string, asked: string, given: string) =>
    `Tool call '${id}' asks about tool '${asked}'; a confirmation cannot change it to '${given}' (confirm, deny or edit the input of the call asked about). Nothing of the event was applied.`,
  deniedAfterEdit: (name: string, rule: string) =>
    `Permission to use ${name} has been denied: the confirmed input matches the deny rule ${rule}.`,
  unknownExternalIds: (ids: string[]) =>
    `Received ExternalExecutionResultEvent with tool call ids ${JSON.stringify(ids)} that are not waiting for external execution.`,
} as const;
