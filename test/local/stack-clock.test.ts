import { describe, expect, it } from 'vitest';
import { NetworkError } from '#commons/voice-api/errors.ts';
import { VoiceApiClient } from '#commons/voice-api/index.ts';
import { EmulatorAdmin } from '#local/emulator/admin-client.ts';
import { startEmulator } from '#local/emulator/server.ts';
import { SimScheduler } from '#local/stack/sim-scheduler.ts';
import { actorClock, asActor, simulatedRequests, stackClock } from '#local/stack/stack-clock.ts';
import { contactSheet, phones, xlsx } from '../helpers/sheets.ts';

const T0 = Date.parse('2026-12-07T18:00:00Z');

function settable(start = T0) {
  let now = start;
  return {
    now: () => now,
    set: (t: number) => {
      if (t < now) throw new Error('backwards');
      now = t;
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('waits inside work on simulated time (stack-clock)', () => {
  it("a wait inside a step is that actor's sleep: others wake on time before it, and time waits for them", async () => {
    const clock = settable();
    const s = new SimScheduler(clock);
    const clockOf = stackClock(clock, s);
    const seen: string[] = [];
    // An execution waits a minute; another, working, waits two minutes for the API budget in its step.
    s.join('waiter');
    s.join('step');
    s.sleep('waiter', T0 + 60_000);
    const waiter = s.gate('waiter').then(async () => {
      seen.push(`waiter woke at +${(clock.now() - T0) / 1000}s`);
      // It works for a while (time stands still), then leaves.
      await tick();
      seen.push(`waiter done at +${(clock.now() - T0) / 1000}s`);
      s.leave('waiter');
    });
    const step = asActor('step', async () => {
      await clockOf.sleep(120_000);
      seen.push(`step went on at +${(clock.now() - T0) / 1000}s`);
    });
    await Promise.all([waiter, step]);
    expect(seen).toEqual(['waiter woke at +60s', 'waiter done at +60s', 'step went on at +120s']);
  });

  it('an actor that is still working holds time: a wait elsewhere does not end before it sleeps', async () => {
    const clock = settable();
    const s = new SimScheduler(clock);
    const clockOf = stackClock(clock, s);
    s.join('busy');
    let wokeAt: number | null = null;
    // Outside any actor (a queue's handler): a wait of its own.
    const outsider = clockOf.sleep(30_000).then(() => {
      wokeAt = clock.now();
    });
    await tick();
    expect([wokeAt, clock.now()]).toEqual([null, T0]);
    s.sleep('busy', T0 + 3_600_000);
    const busy = s.gate('busy').then(() => clock.now());
    await outsider;
    expect(wokeAt).toBe(T0 + 30_000);
    expect(await busy).toBe(T0 + 3_600_000);
  });

  it("one actor's waits take turns, and a wait inside a timer's run moves the clock itself", async () => {
    const clock = settable();
    const s = new SimScheduler(clock);
    const clockOf = stackClock(clock, s);
    s.join('a');
    const ends: number[] = [];
    await asActor('a', () =>
      Promise.all([
        clockOf.sleep(10_000).then(() => ends.push(clock.now() - T0)),
        clockOf.sleep(5_000).then(() => ends.push(clock.now() - T0)),
      ]),
    );
    // The second began its five seconds when the first ended.
    expect(ends).toEqual([10_000, 10_000]);
    s.sleep('a', T0 + 600_000);
    const inTimer: number[] = [];
    s.timer(T0 + 60_000, async () => {
      await clockOf.sleep(3_000);
      inTimer.push(clock.now() - T0);
      return null;
    });
    await s.gate('a');
    expect(inTimer).toEqual([63_000]);
    expect(clock.now()).toBe(T0 + 600_000);
  });

  it('without a scheduler (a test driving the clock by hand) a wait moves the clock', async () => {
    const clock = settable();
    await stackClock(clock, null).sleep(45_000);
    expect(clock.now()).toBe(T0 + 45_000);
  });
});

describe('slow answers on simulated time (simulatedRequests)', () => {
  /** The emulator on its frozen clock, scheduled as `callsheet run` schedules it, with its delayed answers held there. */
  async function heldEmulator(rateLimitPerMinute = 0, maxRetries = 0, backoff?: { baseDelayMs: number }) {
    let hold: ReturnType<typeof simulatedRequests>['holdAnswer'] | null = null;
    const emu = await startEmulator({
      apiKey: 'k',
      speed: 0,
      startTime: T0,
      settings: { rateLimitPerMinute },
      hold: (ms, headers, late, finished) => (hold as NonNullable<typeof hold>)(ms, headers, late, finished),
    });
    const s = new SimScheduler(emu.core.clock);
    const requests = simulatedRequests(s);
    hold = requests.holdAnswer;
    const api = new VoiceApiClient({
      baseUrl: emu.url,
      apiKey: 'k',
      // A budget that lets every request go (the stack's own keeps to the plan on its clock), so the emulator's
      // limit answers.
      budget: { take: async () => {}, observe: () => {} },
      maxRetries,
      timeoutMs: 10_000,
      timing: requests.timing,
      // The stack's client clock (local-stack.ts), with a back-off of half the base delay, at most 10 s.
      ...(backoff ? { clock: actorClock(s), baseDelayMs: backoff.baseDelayMs, random: () => 0.5 } : {}),
    });
    return { emu, s, api, admin: new EmulatorAdmin(emu.url) };
  }

  it("a held answer is the asking actor's sleep: others work on meanwhile, and no real time passes", async () => {
    const { emu, s, api, admin } = await heldEmulator();
    try {
      await admin.fault({ method: 'GET', path: '/agents', delayMs: 9_000, count: 1 });
      const seen: string[] = [];
      s.join('step');
      s.join('other');
      s.sleep('other', T0 + 3_000);
      const other = s.gate('other').then(() => {
        seen.push(`other woke at +${(s.now() - T0) / 1000}s`);
        s.leave('other');
      });
      const step = asActor('step', async () => {
        await api.agents.list();
        seen.push(`answer at +${(s.now() - T0) / 1000}s`);
        s.leave('step');
      });
      // The same 9 s on the real clock: the held answer comes long before it.
      const real = new Promise<void>((resolve) => setTimeout(resolve, 9_000).unref()).then(() => {
        seen.push('9 s of real time');
      });
      await Promise.race([Promise.all([other, step]), real]);
      expect(seen).toEqual(['other woke at +3s', 'answer at +9s']);
    } finally {
      await emu.close();
    }
  });

  it('a time limit shorter than the hold ends the request in simulated time, as a timeout', async () => {
    const { emu, s, api, admin } = await heldEmulator();
    try {
      await admin.fault({ method: 'GET', path: '/agents', delayMs: 600_000, count: 1 });
      s.join('step');
      const err = await asActor('step', () => api.agents.list()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).timedOut).toBe(true);
      expect((err as NetworkError).message).toContain('timed out after 10000 ms');
      expect(s.now()).toBe(T0 + 10_000);
      // The actor works on at once: time stands still until it waits again.
      await tick();
      expect(s.now()).toBe(T0 + 10_000);
      s.leave('step');
    } finally {
      await emu.close();
    }
  });

  it('a request held before it is carried out is work of its own: time waits until it is done', async () => {
    const { emu, s, api, admin } = await heldEmulator();
    try {
      const agent = await api.agents.create({ name: 'Late' });
      // Carried out a minute after it came, long after its asker (10 s limit) gave up; a create reads its sheet on
      // the way, so it is not done at once.
      await admin.fault({ method: 'POST', path: '/campaigns', delayMs: 60_000, late: true, count: 1 });
      s.join('step');
      s.join('other');
      s.sleep('other', T0 + 60_001);
      const other = s.gate('other').then(() => {
        const created = [...emu.core.account.campaigns.values()].map((c) => c.name);
        const logged = emu.traffic.requests.filter((r) => r.path.endsWith('/campaigns')).map((r) => r.at);
        s.leave('other');
        return { created, logged };
      });
      const file = await xlsx(contactSheet(phones(3)));
      const step = asActor('step', async () => {
        const err = await api.campaigns
          .create({ file, fileName: 'late.xlsx', agent_id: agent.id, name: 'Late' })
          .catch((e: unknown) => e);
        s.leave('step');
        return err;
      });
      expect(await step).toBeInstanceOf(Error);
      // A millisecond after it was carried out, the campaign exists and the request is in the log.
      expect(await other).toEqual({ created: ['Late'], logged: [new Date(T0 + 60_000).toISOString()] });
    } finally {
      await emu.close();
    }
  });

  it("a rate limit's reset (Retry-After) is the actor's sleep on the same clock, not real time", async () => {
    const { emu, s, api } = await heldEmulator(2, 1);
    try {
      s.join('step');
      const seen: string[] = [];
      const step = asActor('step', async () => {
        // The minute's two requests, then a 429 whose Retry-After is the minute's end (T0 is on the minute).
        for (let i = 0; i < 3; i++) await api.agents.list();
        seen.push(`third answered at +${(s.now() - T0) / 1000}s`);
        s.leave('step');
      });
      const real = new Promise<void>((resolve) => setTimeout(resolve, 60_000).unref()).then(() => {
        seen.push('60 s of real time');
      });
      await Promise.race([step, real]);
      expect(seen).toEqual(['third answered at +60s']);
      const statuses = emu.traffic.requests.filter((r) => r.path.endsWith('/agents')).map((r) => r.status);
      expect(statuses).toEqual([200, 200, 429, 200]);
    } finally {
      await emu.close();
    }
  });

  it("a back-off after a 500 is the actor's sleep on the same clock; outside an actor it is real time", async () => {
    const { emu, s, api, admin } = await heldEmulator(0, 1, { baseDelayMs: 40_000 });
    try {
      await admin.fault({ method: 'GET', path: '/agents', status: 500, count: 1 });
      s.join('step');
      const seen: string[] = [];
      const step = asActor('step', async () => {
        await api.agents.list();
        seen.push(`retried and answered at +${(s.now() - T0) / 1000}s`);
        s.leave('step');
      });
      const real = new Promise<void>((resolve) => setTimeout(resolve, 20_000).unref()).then(() => {
        seen.push('20 s of real time');
      });
      await Promise.race([step, real]);
      expect(seen).toEqual(['retried and answered at +10s']);
      expect(emu.traffic.requests.filter((r) => r.path.endsWith('/agents')).map((r) => r.status)).toEqual([500, 200]);
      // Nobody moves the clock for a caller outside the scheduler's actors: its back-off passes in real time.
      const outside = actorClock(s);
      const before = s.now();
      await outside.sleep(5);
      expect(s.now()).toBe(before);
    } finally {
      await emu.close();
    }
  });
});

describe('a repeating timer on simulated time (the stats sampler)', () => {
  it('that answers the next wake-up runs once per stretch in which nothing happens, not every tick', async () => {
    const clock = settable();
    const s = new SimScheduler(clock);
    const fired: number[] = [];
    // Sampling every two minutes while a workflow sleeps ten hours: nothing can change before it wakes.
    s.every(120_000, () => {
      fired.push((clock.now() - T0) / 60_000);
      return s.nextWake();
    });
    s.join('workflow');
    s.sleep('workflow', T0 + 10 * 3_600_000);
    await s.gate('workflow');
    s.sleep('workflow', T0 + 10 * 3_600_000 + 240_000);
    await s.gate('workflow');
    s.leave('workflow');
    // Ticks due at a wake-up run just before it (the timer first): 600 and 604 as well as 602 between.
    expect(fired).toEqual([2, 600, 602, 604]);
    // While an actor works, there is no next wake-up to skip to.
    s.join('busy');
    expect(s.nextWake()).toBeNull();
  });

  it('skips the ticks its quiet answer covers only while `idle` holds: the sweeper and a part that starts', async () => {
    const run = async (withIdle: boolean) => {
      const clock = settable();
      const s = new SimScheduler(clock);
      const fired: number[] = [];
      let acted = false;
      // Every 5 minutes; each run answers that nothing is due before minute 120.
      s.every(
        300_000,
        () => {
          acted = false;
          fired.push((clock.now() - T0) / 60_000);
          return T0 + 120 * 60_000;
        },
        withIdle ? () => !acted : undefined,
      );
      // A workflow acts at minute 17 (a new part starts); another sleeps until minute 90.
      s.join('late');
      s.sleep('late', T0 + 17 * 60_000);
      s.join('early');
      s.sleep('early', T0 + 90 * 60_000);
      const late = s.gate('late').then(() => {
        acted = true;
        s.leave('late');
      });
      await s.gate('early');
      await late;
      s.leave('early');
      return fired;
    };
    // The tick after the part started runs (minute 20), and the skip resumes after it.
    expect(await run(true)).toEqual([5, 20]);
    // Without `idle` the quiet answer holds whatever happens.
    expect(await run(false)).toEqual([5]);
  });
});
