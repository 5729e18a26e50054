import { describe, expect, it } from 'vitest';
import type { LambdaInvoke } from '#local/stack/lifecycle-machine.ts';
import { auditRecords, fewerLines, placedCalls, settledRun, uploadOnly, usePipeline } from '../helpers/pipeline.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

/**
 * A workflow wedged between creating a campaign scheduled for a later start and its first look: the execution
 * still runs (so no guard fires) while the campaign starts on its own. Only the sweeper can stop it.
 */
const wedge = { on: false, now: () => 0 };
const wrapLifecycle =
  (invoke: LambdaInvoke): LambdaInvoke =>
  async (event, context) => {
    const out = (await invoke(event, context)) as { wakeAt?: string; next?: string };
    // Its first look planned three days later, as a workflow that never wakes.
    if (wedge.on && (event as { action?: string }).action === 'createCampaign' && out?.next === 'wait')
      return { ...out, wakeAt: new Date(wedge.now() + 3 * 86_400_000).toISOString() };
    return out;
  };
const { settings: lines, numbers } = fewerLines(3);
const p = usePipeline({ LEGAL_HOURS: '{"GB": "off"}' }, { wrapLifecycle, emulator: { settings: lines } });
wedge.now = () => p.f.emu.core.clock.now();
const WINDOW = 'Mon-Fri 09:00-09:30';

describe('a workflow wedged after a scheduled create', () => {
  it('is caught by the sweeper once the campaign starts: nobody is called after the close', async () => {
    // Monday 2027-01-04 08:00 in Los Angeles (PST): the campaign is created scheduled for 09:00.
    await p.f.admin.setClock('2027-01-04T16:00:00.000Z');
    const agent = await p.f.api.agents.create({ name: 'wedged-after-create' });
    wedge.on = true;
    await uploadOnly(
      p,
      `incoming/${agent.id}/wedged.xlsx`,
      await xlsx(contactSheet(phones(numbers(1000), '+1415579'))),
      {
        'calling-window': WINDOW,
      },
    );
    await settledRun(p);
    // It did dial (the start came while the workflow slept), and the sweeper paused it at its overdue look.
    expect(placedCalls(p, agent.id).length).toBeGreaterThan(0);
    expect(await auditRecords(p, agent.id, { hours: WINDOW, closingMarginMinutes: 5 })).toEqual([]);
  }, 180_000);
});
