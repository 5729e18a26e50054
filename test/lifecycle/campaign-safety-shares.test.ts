import { describe, expect, it } from 'vitest';
import {
  type AgentSwitch,
  type BrakeRegister,
  type CampaignLever,
  CampaignSafety,
} from '#lifecycle/campaign-safety.ts';

/** One agent as the API keeps it; each switch counts the requests it carried (each draws on its own share). */
function account() {
  const agent = { is_active: true };
  const switchFor = (calls: string[]): AgentSwitch => ({
    get: async () => {
      calls.push('get');
      return { ...agent };
    },
    toggle: async () => {
      calls.push('toggle');
      agent.is_active = !agent.is_active;
      return {};
    },
  });
  return { agent, switchFor };
}

function register(): BrakeRegister {
  const holders = new Set<string>();
  return {
    hold: async (_agent, holder) => {
      holders.add(holder);
    },
    release: async (_agent, holder) => {
      holders.delete(holder);
      return holders.size;
    },
    holders: async () => holders.size,
  };
}

const lever: CampaignLever = {
  stats: async () => {
    throw new Error('no stats in this test');
  },
  pause: async () => {
    throw new Error('no pause in this test');
  },
};

describe('the agent brake and the budget shares', () => {
  it('engages on the safety switch and releases on the lifecycle switch', async () => {
    const { agent, switchFor } = account();
    const safetyCalls: string[] = [];
    const releaseCalls: string[] = [];
    const safety = new CampaignSafety(
      lever,
      switchFor(safetyCalls),
      register(),
      { action: () => undefined },
      () => new Date('2026-12-07T16:59:00Z'),
      switchFor(releaseCalls),
    );
    expect((await safety.engageBrake('agent_1', 'part-1')).ok).toBe(true);
    expect(agent.is_active).toBe(false);
    expect(releaseCalls).toEqual([]);
    const engaged = safetyCalls.length;
    expect(engaged).toBeGreaterThan(0);

    expect(await safety.releaseBrake('agent_1', 'part-1')).toMatchObject({ ok: true, message: 'agent reactivated' });
    expect(agent.is_active).toBe(true);
    // Letting go spent nothing of the safety share.
    expect(safetyCalls).toHaveLength(engaged);
    expect(releaseCalls).toContain('toggle');
  });
});
