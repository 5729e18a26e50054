import { LIMITS } from './contract.ts';
import type { Transport } from './http.ts';
import { RequestChecks } from './request-checks.ts';
import type { TtsAudio, TtsConfig, TtsInput, TtsProvider } from './types.ts';

export class TtsApi {
  constructor(private readonly http: Transport) {}

  async config(): Promise<TtsConfig> {
    return this.http.data<TtsConfig>({ method: 'GET', path: '/tts-config', repeatability: 'repeatable' });
  }

  /** The provider whose voices `generate` accepts. */
  static singleShotProvider(config: TtsConfig): TtsProvider | undefined {
    return config.providers.find((p) => p.single_shot === true) ?? config.providers[0];
  }

  /**
   * Renders a script to audio. Billed by duration, so it is not repeated after an ambiguous failure. Long
   * scripts can take minutes: the default timeout here is five.
   */
  async generate(input: TtsInput, options: { timeoutMs?: number } = {}): Promise<TtsAudio> {
    new RequestChecks()
      .check(
        typeof input.text === 'string' && input.text.trim() !== '',
        ['body', 'text'],
        'the script is empty',
        'missing',
      )
      .check(
        (input.text ?? '').length <= LIMITS.ttsScriptChars,
        ['body', 'text'],
        `the script has ${(input.text ?? '').length} characters; at most ${LIMITS.ttsScriptChars}`,
        'too_long',
      )
      .check(Boolean(input.actor), ['body', 'actor'], 'actor (a voice value) is required', 'missing')
      .check(Boolean(input.language), ['body', 'language'], "language (the voice's lang) is required", 'missing')
      .done();
    const res = await this.http.send<Uint8Array>({
      method: 'POST',
      path: '/tts/generate',
      json: input,
      repeatability: 'once',
      responseType: 'bytes',
      timeoutMs: options.timeoutMs ?? 300_000,
    });
    const h = res.headers;
    return {
      audio: res.data,
      contentType: h.get('content-type') ?? 'application/octet-stream',
      durationSeconds: Number(h.get('x-duration-seconds') ?? Number.NaN),
      costInr: Number(h.get('x-cost-inr') ?? Number.NaN),
      s3Url: h.get('x-s3-url'),
      requestId: h.get('x-request-id'),
    };
  }
}
