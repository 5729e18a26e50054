import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '#commons/voice-api/index.ts';
import { raw, useEmulator } from '../helpers/emulator.ts';

const f = useEmulator();

describe('agents', () => {
  it('creates an agent with the contract defaults and reads it back', async () => {
    const agent = await f.api.agents.create({ name: 'Front desk' });
    expect(agent).toMatchObject({
      name: 'Front desk',
      phone_number_id: null,
      transcription_languages: [],
      allow_interruptions: false,
      background_music: false,
      is_active: true,
      enable_video_avatar: false,
      greeting_audio_generated: false,
    });
    expect(typeof agent.id).toBe('string');
    expect(Number.isNaN(Date.parse(agent.created_at))).toBe(false);
    expect(await f.api.agents.get(agent.id)).toEqual(agent);
    expect((await f.api.agents.list()).map((a) => a.id)).toEqual([agent.id]);
  });

  it('never hands out an id twice, not even after the account is reset', async () => {
    // callsheet keeps records by agent and campaign id (its brake register): a new account's first agent must not
    // be mistaken for the old account's.
    const before = await f.api.agents.create({ name: 'Before' });
    const [numberBefore] = await f.api.phoneNumbers.list();
    await f.admin.reset();
    const after = await f.api.agents.create({ name: 'After' });
    const [numberAfter] = await f.api.phoneNumbers.list();
    expect(after.id).not.toBe(before.id);
    expect(numberAfter?.id).not.toBe(numberBefore?.id);
    expect((await f.api.agents.list()).map((a) => a.id)).toEqual([after.id]);
  });

  it('maps request names to response names and checks references', async () => {
    const [number] = await f.api.phoneNumbers.list();
    const kb = await f.api.knowledge.create({ name: 'FAQ', content: 'Opening hours 9-5.' });
    const agent = await f.api.agents.create({
      name: 'Sales',
      phone_number_id: number?.id,
      knowledge_base_ids: [kb.id],
      interruptions_enabled: true,
      background_music_enabled: true,
      hard_end_call_minutes: 7,
      tts_provider: 'aurora',
      voice: 'aurora-asha',
      tts_language: 'en-IN',
      greeting_line: 'Hello!',
    });
    expect(agent).toMatchObject({
      phone_number_id: number?.id,
      knowledge_base_ids: [kb.id],
      allow_interruptions: true,
      background_music: true,
      hard_end_call_minutes: 7,
      greeting_audio_generated: true,
    });

    const bad = await f.api.agents
      .create({ name: 'Bad', phone_number_id: 'pn_nope', voice: 'no-such-voice', knowledge_base_ids: ['kb_nope'] })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    const locs = (bad as ValidationError).items.map((i) => i.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.phone_number_id', 'body.voice', 'body.knowledge_base_ids']));
    expect((bad as ValidationError).status).toBe(422);
  });

  it('rejects a missing name and unknown fields with 422 detail items', async () => {
    const res = await raw(f.emu.url, 'POST', '/agents', {
      body: JSON.stringify({ colour: 'blue' }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: expect.arrayContaining([
        { loc: ['body', 'name'], msg: 'field required', type: 'missing' },
        { loc: ['body', 'colour'], msg: 'extra inputs are not permitted', type: 'extra_forbidden' },
      ]),
    });
  });

  it('updates only the provided fields with PATCH, and greeting audio follows the greeting line', async () => {
    const agent = await f.api.agents.create({ name: 'Support', agent_prompt: 'Be kind.' });
    const updated = await f.api.agents.update(agent.id, { greeting_line: 'Hi, support here.' });
    expect(updated).toMatchObject({ name: 'Support', agent_prompt: 'Be kind.', greeting_audio_generated: true });
    const cleared = await f.api.agents.update(agent.id, { greeting_line: null });
    expect(cleared.greeting_audio_generated).toBe(false);
    const put = await raw(f.emu.url, 'PUT', `/agents/${agent.id}`, {
      body: '{}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(put.status).toBe(405);
  });

  it('toggles activity; an inactive agent cannot place calls or campaigns', async () => {
    const agent = await f.api.agents.create({ name: 'Toggler' });
    const off = await f.api.agents.toggle(agent.id);
    expect(off).toMatchObject({ id: agent.id, is_active: false });
    const refused = await f.api.calls
      .start({ agent_id: agent.id, phone_number: '+14155552671' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConflictError);
    expect((refused as ConflictError).status).toBe(409);
    expect((await f.api.agents.setActive(agent.id, true)).is_active).toBe(true);
    expect((await f.api.agents.setActive(agent.id, true)).is_active).toBe(true);
  });

  it('deletes irreversibly; unknown ids are 404', async () => {
    const agent = await f.api.agents.create({ name: 'Temp' });
    await f.api.agents.delete(agent.id);
    await expect(f.api.agents.get(agent.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(f.api.agents.delete(agent.id)).rejects.toMatchObject({ status: 404 });
  });
});
