import { LIMITS } from '#commons/voice-api/contract.ts';
import type { EmulatorCore } from '../core.ts';
import { HttpError, type Router } from '../http-kit.ts';
import { TTS_CONFIG } from '../tts-catalog.ts';
import { speakingSeconds, wav } from '../wav.ts';

const badRequest = (detail: string): HttpError => new HttpError(400, detail);

export function ttsRoutes(router: Router, core: EmulatorCore): void {
  router.on('GET', '/tts-config', () => ({ status: 200, body: TTS_CONFIG }));

  router.on('POST', '/tts/generate', (ctx) => {
    const body = ctx.json() as { text?: unknown; actor?: unknown; language?: unknown } | null;
    if (typeof body !== 'object' || body === null) throw badRequest('the body must be a JSON object');
    const { text, actor, language } = body;
    if (typeof text !== 'string' || text.trim() === '') throw badRequest('the script (text) is empty');
    if (text.length > LIMITS.ttsScriptChars) {
      throw badRequest(`the script has ${text.length} characters; at most ${LIMITS.ttsScriptChars} are allowed`);
    }
    if (typeof actor !== 'string' || actor === '') throw badRequest('actor (a voice value) is required');
    const provider = TTS_CONFIG.providers.find((p) => p.single_shot);
    const voice = provider?.voices.find((v) => v.value === actor);
    if (!voice) throw new HttpError(404, `voice profile ${JSON.stringify(actor)} not found`);
    if (language !== voice.lang) {
      throw badRequest(
        `language must be ${voice.lang}, the language of voice ${actor}; got ${JSON.stringify(language)}`,
      );
    }
    const seconds = speakingSeconds(text);
    const cost = Math.round(seconds * core.account.settings.ttsCostPerSecondInr * 100) / 100;
    if (core.account.settings.credits < cost) throw new HttpError(402, 'insufficient credits for this script');
    core.account.settings.credits = Math.round((core.account.settings.credits - cost) * 100) / 100;
    const id = core.ids.next('tts');
    const audio = wav(seconds);
    core.account.ttsFiles.set(id, { id, audio, created_at: core.clock.now() });
    return {
      status: 200,
      bytes: audio,
      headers: {
        'Content-Type': 'audio/wav',
        'X-Duration-Seconds': seconds.toFixed(3),
        'X-Cost-Inr': cost.toFixed(2),
        'X-S3-Url': `${core.baseUrl}/_emulator/files/tts/${id}.wav`,
        'X-Request-Id': id,
      },
    };
  });
}
