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
      const added = !holders.has(holder);
      holders.add(holder);
      return added;
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

describe('securing a campaign: pause, and the brake on failure or anyway', () => {
  const conflict = Object.assign(new Error('409 not active'), { status: 409 });
  const table: {
    name: string;
    pause: 'ok' | 'fails';
    stats: string;
    agentSwitch: 'works' | 'refuses';
    options: { brakeOnFailure: boolean; brakeAnyway?: boolean };
    outcome: string;
    agentActive: boolean;
  }[] = [
    {
      name: 'a pause that holds is enough',
      pause: 'ok',
      stats: 'paused',
      agentSwitch: 'works',
      options: { brakeOnFailure: true },
      outcome: 'paused',
      agentActive: true,
    },
    {
      name: 'a pause that fails near the close brakes',
      pause: 'fails',
      stats: 'active',
      agentSwitch: 'works',
      options: { brakeOnFailure: true },
      outcome: 'braked',
      agentActive: false,
    },
    {
      name: 'a pause that fails early is unconfirmed, no brake',
      pause: 'fails',
      stats: 'active',
      agentSwitch: 'works',
      options: { brakeOnFailure: false },
      outcome: 'unconfirmed',
      agentActive: true,
    },
    {
      name: 'brake anyway: the pause holds and the agent is switched off too',
      pause: 'ok',
      stats: 'paused',
      agentSwitch: 'works',
      options: { brakeOnFailure: true, brakeAnyway: true },
      outcome: 'braked',
      agentActive: false,
    },
    {
      name: 'brake anyway on a campaign already paused (409)',
      pause: 'fails',
      stats: 'paused',
      agentSwitch: 'works',
      options: { brakeOnFailure: true, brakeAnyway: true },
      outcome: 'braked',
      agentActive: false,
    },
    {
      name: 'brake anyway, the switch refuses: unconfirmed though the campaign is paused (tried again)',
      pause: 'fails',
      stats: 'paused',
      agentSwitch: 'refuses',
      options: { brakeOnFailure: true, brakeAnyway: true },
      outcome: 'unconfirmed',
      agentActive: true,
    },
    {
      name: 'brake anyway, neither holds: unconfirmed',
      pause: 'fails',
      stats: 'active',
      agentSwitch: 'refuses',
      options: { brakeOnFailure: true, brakeAnyway: true },
      outcome: 'unconfirmed',
      agentActive: true,
    },
  ];
  for (const row of table)
    it(row.name, async () => {
      const { agent, switchFor } = account();
      const agents = switchFor([]);
      const brakes = register();
      const safety = new CampaignSafety(
        {
          stats: async () => ({ status: row.stats, pending: 5, in_progress: 0 }) as never,
          pause: async () => {
            if (row.pause === 'fails') throw conflict;
            return {};
          },
        },
        row.agentSwitch === 'works' ? agents : { ...agents, toggle: async () => ({}) },
        brakes,
        { action: () => undefined },
        () => new Date('2026-12-07T16:53:00Z'),
      );
      const { outcome } = await safety.secure({ campaignId: 'cmp_1', agentId: 'agt_1', holder: 'part-1' }, 'workflow', {
        ...row.options,
        reason: 'window',
      });
      expect(outcome).toBe(row.outcome);
      expect(agent.is_active).toBe(row.agentActive);
      // A brake that did not hold leaves no holder behind, which a look would take for a brake held.
      expect(await brakes.holders('agt_1')).toBe(row.agentActive ? 0 : 1);
    });
});
