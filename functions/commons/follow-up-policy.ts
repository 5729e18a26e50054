/**
 * The follow-up policy an upload asks for (setting `follow up`): which outcomes are called again, after how long, for
 * how many rounds. Intake reads it, the campaign plan carries it, the part end plans rounds by it.
 */

/** The outcomes a follow-up round can ask for. `failed` is any other failure (or one whose reason is unknown). */
export const FOLLOW_UP_OUTCOMES = ['no_answer', 'busy', 'failed'] as const;
export type FollowUpOutcome = (typeof FOLLOW_UP_OUTCOMES)[number];

export interface FollowUpRule {
  outcomes: FollowUpOutcome[];
  /** How long after the round ends the next one may start (the lifecycle moves it into the next legal window). */
  afterMinutes: number;
}

export interface FollowUpPolicy {
  rules: FollowUpRule[];
  /** Rounds after the first, at most 3. */
  maxRounds: number;
}

export const MAX_FOLLOW_UP_ROUNDS = 3;

const DURATION = /^(\d+)\s*(m|min|h|d)$/i;

/**
 * Reads a follow-up setting (Settings sheet, S3 metadata or CLI flag), e.g.
 * `no_answer,busy after 2h; failed after 1d; rounds 3`.
 */
export function parseFollowUpPolicy(text: string): FollowUpPolicy | { problem: string } {
  const rules: FollowUpRule[] = [];
  let maxRounds = 1;
  for (const part of text
    .split(';')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const rounds = part.match(/^rounds\s+(\d+)$/i);
    if (rounds) {
      maxRounds = Number(rounds[1]);
      if (maxRounds < 1 || maxRounds > MAX_FOLLOW_UP_ROUNDS)
        return { problem: `rounds must be 1 to ${MAX_FOLLOW_UP_ROUNDS}, not ${rounds[1]}` };
      continue;
    }
    const rule = part.match(/^([a-z_,\s-]+?)\s+after\s+(.+)$/i);
    if (!rule) return { problem: `"${part}" is neither "<outcomes> after <2h|30m|1d>" nor "rounds <n>"` };
    const outcomes = (rule[1] as string).split(',').map((o) =>
      o
        .trim()
        .toLowerCase()
        .replace(/[\s-]+/g, '_'),
    );
    const unknown = outcomes.find((o) => !(FOLLOW_UP_OUTCOMES as readonly string[]).includes(o));
    if (unknown) return { problem: `"${unknown}" is not one of ${FOLLOW_UP_OUTCOMES.join(', ')}` };
    const d = (rule[2] as string).trim().match(DURATION);
    if (!d) return { problem: `"${rule[2]}" is not a delay such as 30m, 2h or 1d` };
    const unit = (d[2] as string).toLowerCase();
    const minutes = Number(d[1]) * (unit === 'd' ? 1440 : unit === 'h' ? 60 : 1);
    rules.push({ outcomes: outcomes as FollowUpOutcome[], afterMinutes: minutes });
  }
  if (rules.length === 0) return { problem: 'name at least one outcome to call again, e.g. "no_answer after 2h"' };
  return { rules, maxRounds };
}
