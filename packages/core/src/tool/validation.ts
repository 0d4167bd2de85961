import type { z } from 'zod';
import type { Tool } from './types.js';

/** Zod issues as one readable line: `questions.0.header: Too big: ...; ...`. */
export function describeZodIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      return path === '' ? issue.message : `${path}: ${issue.message}`;
    })
    .join('; ');
}

/** The result of checking a tool call's raw JSON input. */
export type InputCheck<Input> = { ok: true; input: Input } | { ok: false; reason: string };

/** Parses the raw JSON input, then validates it against the tool's schema. */
export function parseToolInput<Input>(tool: Tool<Input>, raw: string): InputCheck<Input> {
  let value: unknown;
  try {
    value = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (error) {
    return {
      ok: false,
      reason: `input is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  const parsed = tool.inputSchema.safeParse(value);
  return parsed.success
    ? { ok: true, input: parsed.data }
    : { ok: false, reason: describeZodIssues(parsed.error) };
}
