import * as z from 'zod';
import { onFirstUse } from '../on-first-use.js';
import type { Message } from './message.js';

export const toolDefSchema = onFirstUse(() =>
  z.looseObject({
    type: z.literal('function'),
    function: z.looseObject({
      name: z.string(),
      description: z.string().optional(),
      parameters: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
);
export type ToolDef = z.infer<ReturnType<typeof toolDefSchema>>;

/**
 * The envelope of one archive line; messages are validated one by one (see parse.ts) so errors name the message. Built
 * on first use: valid input never reaches it (model/quick-check.ts).
 */
export const transcriptEnvelopeSchema = onFirstUse(() =>
  z.looseObject({
    id: z.string().min(1),
    messages: z.array(z.looseObject({ role: z.string() })),
    tools: z.array(toolDefSchema()).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
);

/** One canonical transcript: one line of a tcompact archive. Unknown top-level fields are preserved. */
export interface Transcript {
  id: string;
  messages: Message[];
  tools?: ToolDef[];
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}
