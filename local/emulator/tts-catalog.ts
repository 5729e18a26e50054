/** The voices this emulated account offers; generate uses the single-shot provider. */
export const TTS_CONFIG = {
  default_provider: 'lumen',
  providers: [
    {
      key: 'aurora',
      name: 'Aurora Neural (single-shot)',
      single_shot: true,
      voices: [
        { value: 'aurora-asha', name: 'Asha', lang: 'en-IN', gender: 'female' },
        { value: 'aurora-ravi', name: 'Ravi', lang: 'hi-IN', gender: 'male' },
        { value: 'aurora-emma', name: 'Emma', lang: 'en-US', gender: 'female' },
      ],
      languages: [
        { id: 'en-IN', name: 'English (India)' },
        { id: 'hi-IN', name: 'Hindi' },
        { id: 'en-US', name: 'English (US)' },
      ],
    },
    {
      key: 'lumen',
      name: 'Lumen Realtime',
      single_shot: false,
      voices: [
        { value: 'lumen-nova', name: 'Nova', lang: 'en-US', gender: 'female' },
        { value: 'lumen-kai', name: 'Kai', lang: 'en-GB', gender: 'male' },
      ],
      languages: [
        { id: 'en-US', name: 'English (US)' },
        { id: 'en-GB', name: 'English (UK)' },
      ],
    },
  ],
} as const;

export type TtsProviderEntry = (typeof TTS_CONFIG.providers)[number];

export const findProvider = (key: string): TtsProviderEntry | undefined =>
  TTS_CONFIG.providers.find((p) => p.key === key);
