import { describe, expect, test } from 'vitest';
import { leftAs } from '#lifecycle/safety-net/campaign-guard.ts';

describe("how the safety net left a campaign, in a part's failure", () => {
  test.each([
    ['paused', true, 'paused'],
    ['not_active', true, 'not dialling (the API says it is no longer active)'],
    ['braked', false, 'braked: its pause was not confirmed, so its agent is switched off'],
    // A resume in doubt brakes a campaign whose pause held.
    ['braked', true, 'paused, and its agent switched off too: a resume sent earlier may still land'],
    ['unconfirmed', false, 'unconfirmed: the API answered neither its pause nor the brake'],
    ['none', undefined, 'alone: no campaign was created'],
  ] as const)('%s, pause held %s', (outcome, pauseHeld, words) => {
    expect(leftAs({ outcome, ...(pauseHeld === undefined ? {} : { pauseHeld }) })).toBe(words);
  });
});
