import {
  type FollowUpOutcome,
  type FollowUpPolicy,
  type FollowUpRule,
  MAX_FOLLOW_UP_ROUNDS,
} from '#commons/follow-up-policy.ts';
import type { ContactOutcome } from '#commons/outcomes/call-outcome.ts';

/** Which follow-up outcome a contact's last call had, or null when it needs no follow-up (it completed). */
export function followUpOutcome(c: ContactOutcome): FollowUpOutcome | null {
  if (c.lastStatus === 'completed') return null;
  if (c.lastFailureReason === 'no_answer' || c.lastFailureReason === 'busy') return c.lastFailureReason;
  return 'failed';
}

export interface FollowUpGroup {
  rule: FollowUpRule;
  /**
   * The rule's place in the policy, which names the round's part (`followUpKey`): the same on a retried part end
   * even when a group before it has emptied meanwhile (its contacts opted out), so a round already started is never
   * given another group's list.
   */
  ruleIndex: number;
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
  for (const [ruleIndex, rule] of policy.rules.entries()) {
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
      groups.push({
        rule,
        ruleIndex,
        notBefore: new Date(endedAt.getTime() + rule.afterMinutes * 60_000),
        contacts: chosen,
      });
  }
  return groups.length > 0 || skipped.length > 0 ? { round: round + 1, groups, skipped } : null;
}
