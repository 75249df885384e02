/**
 * Whether the provider keeps the thinking of earlier assistant turns in a model's prompt. Anthropic's Messages API
 * strips the thinking blocks of the turns before the last user prompt for some models and keeps them for others
 * (Anthropic's extended-thinking page, "thinking block preservation", quoted in public threads): Claude Opus 4.5 and
 * later Opus models keep all of them; Opus 4.1 and earlier keep only the last turn's; Sonnet 4.6 and later keep all,
 * Sonnet 4.5 and earlier (3.7 included) only the last turn's; every Haiku through Haiku 4.5 only the last turn's.
 * A model this rule does not name (another provider's, a later Haiku) keeps them: the prompt as the log holds it.
 */
export function keepsEarlierThinking(model: string): boolean {
  const version = claudeVersion(model);
  if (!version) return true;
  const { family, major, minor } = version;
  const atLeast = (a: number, b: number) => major > a || (major === a && minor >= b);
  if (family === 'opus') return atLeast(4, 5);
  if (family === 'sonnet') return atLeast(4, 6);
  return atLeast(4, 6);
}

/**
 * Family and version of a Claude model id, in either naming: `claude-opus-4-5-20251101`, `claude-sonnet-4-6`,
 * `claude-opus-4-20250514` (4.0), `claude-3-7-sonnet-20250219`. A trailing 8-digit group is a date, not a version.
 */
function claudeVersion(model: string): { family: 'opus' | 'sonnet' | 'haiku'; major: number; minor: number } | undefined {
  const id = model.toLowerCase().replace(/^.*\//, '');
  const newer = /^claude-(opus|sonnet|haiku)-(\d{1,2})(?:-(\d{1,2}))?(?:-\d{8})?(?:$|[^\d])/.exec(id);
  if (newer) return { family: newer[1] as 'opus' | 'sonnet' | 'haiku', major: Number(newer[2]), minor: Number(newer[3] ?? 0) };
  const older = /^claude-(\d)(?:-(\d))?-(opus|sonnet|haiku)/.exec(id);
  if (older) return { family: older[3] as 'opus' | 'sonnet' | 'haiku', major: Number(older[1]), minor: Number(older[2] ?? 0) };
  return undefined;
}
