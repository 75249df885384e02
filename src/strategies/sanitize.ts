import * as z from 'zod';
import { noRepairs, pairedInPlace, repairPairing } from '../model/repair.js';
import { unchanged, withMessages } from './_edit.js';
import type { Strategy } from './types.js';

/** `sanitize` takes no options: it repairs structure only, over the whole transcript (no kept turns). */
const SanitizeConfigSchema = z.strictObject({});

/**
 * Makes tool pairing valid the documented way (model/repair.ts): missing results filled with `[no result recorded]`,
 * orphan and duplicate results dropped, misplaced results moved after their call. Dropped results go to the side store
 * so nothing is lost. Runs first and last in every pipeline: the last one is the net under a strategy that broke the
 * pairing, which every strategy must keep valid.
 */
export const sanitize: Strategy<typeof SanitizeConfigSchema> = {
  name: 'sanitize',
  summary: 'repair tool-call/result pairing: fill missing results, drop orphans and duplicates, move misplaced results',
  config: SanitizeConfigSchema,
  apply(transcript, _config, ctx) {
    // What repairPairing returns for a validly paired transcript, by a check that copies nothing: most transcripts are
    // paired, and the last sanitize finds them so unless a strategy broke the pairing.
    if (pairedInPlace(transcript.messages)) return unchanged(transcript, { ...noRepairs() });
    const { messages, repairs, dropped } = repairPairing(transcript.messages);
    for (const m of dropped) ctx.refs?.putJson(JSON.stringify(m));
    return {
      transcript: withMessages(transcript, messages),
      messagesChanged: 0,
      messagesRemoved: dropped.length,
      details: { ...repairs },
    };
  },
};
