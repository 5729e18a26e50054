import type { ContactOutcome } from './call-outcome.ts';

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

/** Which follow-up outcome a contact's last call had, or null when it needs no follow-up (it completed). */
export function followUpOutcome(c: ContactOutcome): FollowUpOutcome | null {
  if (c.lastStatus === 'completed') return null;
  if (c.lastFailureReason === 'no_answer' || c.lastFailureReason === 'busy') return c.lastFailureReason;
  return 'failed';
}

export interface FollowUpGroup {
  rule: FollowUpRule;
  /** The earliest start of this group's campaign. */
  notBefore: Date;
  contacts: { phone: string; name: string | null }[];
}

export interface FollowUpPlan {
  round: number;
  groups: FollowUpGroup[];
  /** Contacts left out on purpose, with why (for the report). */
  skipped: { phone: string; reason: 'suppressed' | 'opted-out' }[];
}

/**
 * The next round after round `round` (1 = the first campaign) ended at `endedAt`: per rule, the contacts whose last
 * call had one of its outcomes, minus every number suppressed since (an opt-out mid-campaign included). Null when
 * the policy allows no more rounds or nobody is left to call. Call it after `reconcileOutcomes`, which fills in the
 * failure reasons webhooks do not carry.
 */
export function planFollowUp(
  contacts: readonly ContactOutcome[],
  policy: FollowUpPolicy,
  round: number,
  endedAt: Date,
  suppressed: ReadonlySet<string>,
): FollowUpPlan | null {
  if (round > Math.min(policy.maxRounds, MAX_FOLLOW_UP_ROUNDS)) return null;
  const skipped: FollowUpPlan['skipped'] = [];
  const taken = new Set<string>();
  const groups: FollowUpGroup[] = [];
  for (const rule of policy.rules) {
    const chosen: FollowUpGroup['contacts'] = [];
    for (const c of contacts) {
      const outcome = followUpOutcome(c);
      if (!outcome || !rule.outcomes.includes(outcome) || taken.has(c.phone)) continue;
      taken.add(c.phone);
      if (c.optOutPhrase) skipped.push({ phone: c.phone, reason: 'opted-out' });
      else if (suppressed.has(c.phone)) skipped.push({ phone: c.phone, reason: 'suppressed' });
      else chosen.push({ phone: c.phone, name: c.contactName });
    }
    if (chosen.length > 0)
      groups.push({ rule, notBefore: new Date(endedAt.getTime() + rule.afterMinutes * 60_000), contacts: chosen });
  }
  return groups.length > 0 || skipped.length > 0 ? { round: round + 1, groups, skipped } : null;
}

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
