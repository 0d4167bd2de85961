// Waiting calls as the server's summary lists them, for the unit tests.
import type { WaitingCall } from '../src/api/client.js';

/** An AskUser input with one single-select question, "Which colour?". */
export const colourQuestion = JSON.stringify({
  questions: [
    {
      question: 'Which colour?',
      header: 'Colour',
      options: [
        { label: 'Red', description: 'warm' },
        { label: 'Blue', description: 'cool' },
      ],
    },
  ],
});

/** A waiting call: asking for a confirmation, or submitted for an outside result. */
export function waitingCall(
  id: string,
  name: string,
  awaiting: 'confirm' | 'external',
  input: string,
): WaitingCall {
  return {
    type: 'tool_call',
    id,
    name,
    input,
    state: awaiting === 'confirm' ? 'asking' : 'submitted',
    suggestedRules: [],
    awaiting,
  };
}
