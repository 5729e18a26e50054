import { describe, expect, it } from 'vitest';
import { RequestValidationError, VoiceApiClient } from '#commons/voice-api/index.ts';

/** A client whose every network call fails the test: these checks must stop a request before it is sent. */
const offline = new VoiceApiClient({
  baseUrl: 'http://127.0.0.1:9',
  apiKey: 'k',
  requestsPerMinute: 0,
  fetch: () => Promise.reject(new Error('a request that breaks the contract was sent')),
});

const locs = async (p: Promise<unknown>) => {
  const err = await p.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RequestValidationError);
  return (err as RequestValidationError).items.map((i) => i.loc.join('.'));
};

describe('client-side checks before sending', () => {
  const sheet = { file: new Uint8Array([1]), fileName: 'c.xlsx', agent_id: 'a', name: 'n' };

  it('refuses a campaign with retries outside 0–3, half a schedule, an unknown zone or an unreadable start', async () => {
    expect(await locs(offline.campaigns.create({ ...sheet, retries: 4 }))).toEqual(['body.retries']);
    expect(await locs(offline.campaigns.create({ ...sheet, start_date_time: '2026-03-03T10:00:00' }))).toEqual([
      'body.time_zone',
    ]);
    expect(await locs(offline.campaigns.create({ ...sheet, time_zone: 'UTC' }))).toEqual(['body.start_date_time']);
    expect(await locs(offline.campaigns.create({ ...sheet, start_date_time: 'soon', time_zone: 'Mars/Base' }))).toEqual(
      ['body.start_date_time', 'body.time_zone'],
    );
    expect(await locs(offline.campaigns.create({ ...sheet, fileName: 'c.csv' }))).toEqual(['body.file']);
    expect(await locs(offline.campaigns.update('c1', { retries: -1 }))).toEqual(['body.retries']);
  });

  it('refuses calls and contacts that are not E.164, and empty or over-long scripts', async () => {
    expect(await locs(offline.calls.start({ agent_id: 'a', phone_number: '415 555 2671' }))).toEqual([
      'body.phone_number',
    ]);
    expect(await locs(offline.contacts.upsert({ phone_number: '+1415', tags: [1 as unknown as string] }))).toEqual([
      'body.phone_number',
      'body.tags',
    ]);
    expect(await locs(offline.tts.generate({ text: '   ', actor: 'v', language: 'en' }))).toEqual(['body.text']);
    expect(await locs(offline.calls.list({ limit: 101 }))).toEqual(['query.limit']);
  });
});
