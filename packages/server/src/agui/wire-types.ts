import type { InterruptSchema, MessageSchema, RunAgentInputSchema } from '@ag-ui/core/schemas';
import type { z } from 'zod';

/**
 * A RunAgentInput as `@ag-ui/core`'s own schema reads it off the wire. The
 * schema's types, not the hand-written ones, because a parsed value carries
 * optional fields as `undefined` where the hand-written types leave them out.
 */
export type AguiInput = z.output<typeof RunAgentInputSchema>;

/** One message of an input, as read off the wire. */
export type AguiMessage = AguiInput['messages'][number];

/** One resume entry of an input, as read off the wire. */
export type AguiResumeEntry = NonNullable<AguiInput['resume']>[number];

/** An interrupt as a stored run outline keeps it (read back through the schema). */
export type StoredInterrupt = z.output<typeof InterruptSchema>;

/** A message as a stored run outline keeps it (read back through the schema). */
export type StoredMessage = z.output<typeof MessageSchema>;
