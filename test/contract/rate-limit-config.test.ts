import { describe, expect, it } from 'vitest';
import { TEST_KEY, useEmulator } from '../helpers/emulator.ts';

const f = useEmulator({ settings: { rateLimitPerMinute: 100 } });

describe('the plan limits can be changed while the emulator runs', () => {
  it('takes an hourly limit from the admin API and enforces it with the headers', async () => {
    await f.admin.configure({ rateLimitPerMinute: 1000, rateLimitPerHour: 3 });
    const get = () => fetch(`${f.emu.url}/api/developer/v1/agents`, { headers: { 'X-API-Key': TEST_KEY } });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get());
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(answers[2]?.headers.get('x-ratelimit-limit')).toBe('3');
    expect(answers[3]?.headers.get('retry-after')).toBeTruthy();
    // null goes back to ten times the minute limit.
    await f.admin.configure({ rateLimitPerHour: null, rateLimitPerMinute: 100 });
    expect((await get()).status).toBe(200);
  });

  it('refuses an hourly limit that is not a whole number', async () => {
    await expect(f.admin.configure({ rateLimitPerHour: -1 })).rejects.toThrow(/rateLimitPerHour/);
    await expect(f.admin.configure({ rateLimitPerHour: 'many' })).rejects.toThrow(/rateLimitPerHour/);
  });
});
