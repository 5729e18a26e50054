export { VoiceApiClient } from './client.ts';
export * from './contract.ts';
export * from './errors.ts';
export type { ApiRequest, Repeatability, VoiceApiOptions } from './http.ts';
export { type LiveAuth, type LiveMessage, LiveTranscript, wsUrlFor } from './live.ts';
export type { Clock } from './rate-limiter.ts';
export { TtsApi } from './tts.ts';
export type * from './types.ts';
export * from './webhooks.ts';
