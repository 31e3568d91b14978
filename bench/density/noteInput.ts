/**
 * The turn's tool input as zod describes it, for the subjects whose libraries define tools with
 * zod (`defineTool`, LangChain's `tool`). Kept apart from agentTurn.ts so that the floor's process
 * does not load zod.
 */
import * as z from 'zod';

export const NOTE_INPUT = z.object({ name: z.string().describe('The note to read') }).strict();
