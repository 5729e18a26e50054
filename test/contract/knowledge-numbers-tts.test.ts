import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  InsufficientCreditsError,
  NotFoundError,
  RequestValidationError,
  TtsApi,
} from '#commons/voice-api/index.ts';
import { raw, useEmulator } from '../helpers/emulator.ts';

const f = useEmulator();

describe('knowledge bases', () => {
  it('supports create, list, get, partial update and delete', async () => {
    const kb = await f.api.knowledge.create({ name: 'Pricing', content: 'Basic plan: 10 USD.' });
    expect(kb).toMatchObject({ name: 'Pricing', content: 'Basic plan: 10 USD.' });
    expect(await f.api.knowledge.list()).toEqual([kb]);
    const updated = await f.api.knowledge.update(kb.id, { content: 'Basic plan: 12 USD.' });
    expect(updated).toMatchObject({ name: 'Pricing', content: 'Basic plan: 12 USD.' });
    expect(await f.api.knowledge.get(kb.id)).toEqual(updated);
    await expect(f.api.knowledge.create({ name: '', content: 'x' })).rejects.toBeInstanceOf(RequestValidationError);
    const res = await raw(f.emu.url, 'POST', '/knowledge', {
      body: JSON.stringify({ name: 'No content' }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(422);
  });

  it('deleting a knowledge base leaves agents working without it', async () => {
    const keep = await f.api.knowledge.create({ name: 'Keep', content: 'a' });
    const drop = await f.api.knowledge.create({ name: 'Drop', content: 'b' });
    const agent = await f.api.agents.create({ name: 'Reader', knowledge_base_ids: [keep.id, drop.id] });
    await f.api.knowledge.delete(drop.id);
    await expect(f.api.knowledge.get(drop.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await f.api.agents.get(agent.id)).knowledge_base_ids).toEqual([keep.id]);
    expect((await f.api.calls.start({ agent_id: agent.id, phone_number: '+14155552671' })).status).toBe('queued');
  });
});

describe('phone numbers', () => {
  it('lists the numbers assigned to the account, usable as phone_number_id', async () => {
    const numbers = await f.api.phoneNumbers.list();
    expect(numbers.length).toBeGreaterThan(0);
    for (const n of numbers) expect(n.phone_number).toMatch(/^\+[1-9]\d{6,14}$/);
    const agent = await f.api.agents.create({ name: 'From India', phone_number_id: numbers[1]?.id });
    const call = await f.api.calls.start({ agent_id: agent.id, phone_number: '+919820012345' });
    expect(call.from_number).toBe(numbers[1]?.phone_number);
  });
});

describe('text to speech', () => {
  it('exposes providers with voices and languages, and renders real WAV audio whose length matches the header', async () => {
    const config = await f.api.tts.config();
    const provider = TtsApi.singleShotProvider(config);
    expect(provider?.single_shot).toBe(true);
    const voice = provider?.voices[0];
    const script = 'Hello there, this is a reminder about your appointment tomorrow at ten in the morning.';
    const out = await f.api.tts.generate({
      text: script,
      actor: voice?.value as string,
      language: voice?.lang as string,
    });
    expect(out.contentType).toBe('audio/wav');
    const audio = Buffer.from(out.audio);
    expect(audio.subarray(0, 4).toString()).toBe('RIFF');
    expect(audio.subarray(8, 12).toString()).toBe('WAVE');
    expect(audio.readUInt16LE(20)).toBe(1); // PCM
    expect(audio.readUInt16LE(34)).toBe(16); // 16-bit
    const rate = audio.readUInt32LE(24);
    const dataBytes = audio.readUInt32LE(40);
    expect(dataBytes).toBe(audio.length - 44);
    expect(dataBytes / 2 / rate).toBeCloseTo(out.durationSeconds, 2);
    expect(out.costInr).toBeGreaterThan(0);
    expect(out.requestId).toBeTruthy();
    const stored = await fetch(out.s3Url as string);
    expect(Buffer.from(await stored.arrayBuffer()).equals(audio)).toBe(true);
    const state = await f.admin.state<{ credits: number }>();
    expect(state.credits).toBeCloseTo(10_000 - out.costInr, 2);
  });

  it('answers 400 for empty or over-long scripts and wrong languages, 404 for unknown voices, 402 without credits', async () => {
    const post = (body: unknown) =>
      raw(f.emu.url, 'POST', '/tts/generate', {
        body: JSON.stringify(body),
        headers: { 'Content-Type': 'application/json' },
      });
    expect((await post({ text: '', actor: 'aurora-asha', language: 'en-IN' })).status).toBe(400);
    expect((await post({ text: 'x'.repeat(6001), actor: 'aurora-asha', language: 'en-IN' })).status).toBe(400);
    expect((await post({ text: 'x'.repeat(6000), actor: 'aurora-asha', language: 'en-IN' })).status).toBe(200);
    expect((await post({ text: 'hi', actor: 'aurora-asha', language: 'en-US' })).status).toBe(400);
    expect((await post({ text: 'hi', actor: 'lumen-nova', language: 'en-US' })).status).toBe(404);
    await expect(f.api.tts.generate({ text: 'hi', actor: 'aurora-asha', language: 'hi-IN' })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    await expect(
      f.api.tts.generate({ text: 'x'.repeat(6001), actor: 'aurora-asha', language: 'en-IN' }),
    ).rejects.toBeInstanceOf(RequestValidationError);
    await f.admin.configure({ credits: 0 });
    await expect(f.api.tts.generate({ text: 'hi', actor: 'aurora-asha', language: 'en-IN' })).rejects.toBeInstanceOf(
      InsufficientCreditsError,
    );
  });
});
