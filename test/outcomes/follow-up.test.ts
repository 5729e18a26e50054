import { describe, expect, it } from 'vitest';
import { followUpKey } from '#commons/campaign-plan.ts';
import { parseFollowUpPolicy } from '#commons/follow-up-policy.ts';
import type { ContactOutcome } from '#commons/outcomes/call-outcome.ts';
import { planFollowUp } from '#lifecycle/part-end/follow-up.ts';

const contact = (phone: string, more: Partial<ContactOutcome>): ContactOutcome => ({
  campaignId: 'cmp',
  phone,
  contactName: null,
  attempts: 1,
  lastStatus: 'failed',
  lastFailureReason: null,
  durationSeconds: 0,
  costInr: null,
  transcriptUrl: null,
  recordingUrl: null,
  lastCallStartedAt: '2026-03-02T09:59:00Z',
  lastCallEndedAt: '2026-03-02T10:00:00Z',
  lastCallId: `call_${phone}`,
  optOutPhrase: null,
  ...more,
});

describe('follow-up rounds', () => {
  it.each([
    [
      'no_answer,busy after 2h; failed after 1d; rounds 3',
      {
        rules: [
          { outcomes: ['no_answer', 'busy'], afterMinutes: 120 },
          { outcomes: ['failed'], afterMinutes: 1440 },
        ],
        maxRounds: 3,
      },
    ],
    ['No Answer after 30m', { rules: [{ outcomes: ['no_answer'], afterMinutes: 30 }], maxRounds: 1 }],
    ['rounds 4; busy after 1h', { problem: 'rounds must be 1 to 3, not 4' }],
    ['voicemail after 1h', { problem: '"voicemail" is not one of no_answer, busy, failed' }],
    ['busy after soon', { problem: '"soon" is not a delay such as 30m, 2h or 1d' }],
    ['rounds 2', { problem: 'name at least one outcome to call again, e.g. "no_answer after 2h"' }],
  ])('reads %j', (text, expected) => {
    expect(parseFollowUpPolicy(text)).toEqual(expected);
  });

  const policy = parseFollowUpPolicy('no_answer,busy after 2h; failed after 1d; rounds 2') as Exclude<
    ReturnType<typeof parseFollowUpPolicy>,
    { problem: string }
  >;
  const ended = new Date('2026-03-02T11:00:00Z');
  const contacts = [
    contact('+1001', { lastFailureReason: 'no_answer', contactName: 'A' }),
    contact('+1002', { lastFailureReason: 'busy' }),
    contact('+1003', { lastFailureReason: 'insufficient_credits' }),
    contact('+1004', { lastStatus: 'completed' }),
    contact('+1005', { lastFailureReason: 'no_answer' }),
    contact('+1006', { lastStatus: 'completed', optOutPhrase: 'stop calling me' }),
    contact('+1007', { lastFailureReason: 'busy', optOutPhrase: 'do not call me' }),
  ];

  it('calls back by outcome, each group after its delay, never a suppressed or opted-out number', () => {
    const plan = planFollowUp(contacts, policy, 1, ended, new Set(['+1005']));
    expect(plan?.round).toBe(2);
    expect(plan?.groups.map((g) => [g.notBefore.toISOString(), g.contacts.map((c) => c.phone)])).toEqual([
      ['2026-03-02T13:00:00.000Z', ['+1001', '+1002']],
      ['2026-03-03T11:00:00.000Z', ['+1003']],
    ]);
    expect(plan?.skipped).toEqual([
      { phone: '+1005', reason: 'suppressed' },
      { phone: '+1007', reason: 'opted-out' },
    ]);
  });

  it('names each group by its rule, so a retried part end keeps every round on its own list', () => {
    const keyOf = (suppressed: string[]) =>
      planFollowUp(contacts, policy, 1, ended, new Set(suppressed))?.groups.map((g) => [
        followUpKey('u-p1', 2, g.ruleIndex),
        g.contacts.map((c) => c.phone),
      ]);
    expect(keyOf([])).toEqual([
      ['u-p1-r2a', ['+1001', '+1002', '+1005']],
      ['u-p1-r2b', ['+1003']],
    ]);
    // The first rule's contacts opted out before the retry: the failed group is still round 2b, never 2a.
    expect(keyOf(['+1001', '+1002', '+1005'])).toEqual([['u-p1-r2b', ['+1003']]]);
  });

  it('stops after the rounds the policy allows, or when nobody is left', () => {
    expect(planFollowUp(contacts, policy, 2, ended, new Set())?.round).toBe(3);
    expect(planFollowUp(contacts, policy, 3, ended, new Set())).toBeNull();
    expect(planFollowUp([contact('+1004', { lastStatus: 'completed' })], policy, 1, ended, new Set())).toBeNull();
  });
});
