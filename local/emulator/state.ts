import type { CallStatus, CampaignStatus } from '#commons/voice-api/contract.ts';
import type { TranscriptLine } from '#commons/voice-api/types.ts';
import type { Timer } from './clock.ts';

/** The emulator's in-memory account. Records hold epoch milliseconds; routes render them as ISO strings. */

export interface AgentRecord {
  id: string;
  name: string;
  phone_number_id: string | null;
  tts_provider: string | null;
  voice: string | null;
  tts_language: string | null;
  greeting_line: string | null;
  agent_prompt: string | null;
  analysis_prompt: string | null;
  transcription_languages: string[];
  knowledge_base_ids: string[] | null;
  allow_interruptions: boolean;
  background_music: boolean;
  hard_end_call_minutes: number | null;
  is_active: boolean;
  enable_video_avatar: boolean;
  avatar_face_id: string | null;
  greeting_audio_generated: boolean;
  created_at: number;
  updated_at: number;
}

export interface CallRecord {
  id: string;
  status: CallStatus;
  agent_id: string;
  campaign_id: string | null;
  phone_number: string;
  from_number: string | null;
  contact_name: string | null;
  custom_instructions: string | null;
  created_at: number;
  started_at: number | null;
  answered_at: number | null;
  ended_at: number | null;
  duration: number | null;
  cost: number | null;
  transcript: TranscriptLine[] | null;
  recording_url: string | null;
  summary: string | null;
  failure_reason: string | null;
  /** Pending simulation steps of this call, cancelled when the call is cancelled or deleted. */
  timers: Timer[];
}

export interface ContactRecord {
  phone_number: string;
  contact_name: string | null;
  email: string | null;
  city: string | null;
  location: string | null;
  source: string | null;
  lead_status: string | null;
  custom_instruction: string | null;
  tags: string[];
  notes: string[];
  created_at: number;
  updated_at: number;
}

export type CampaignContactStatus = 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

export interface CampaignContact {
  row: number;
  phone_number: string;
  name: string | null;
  custom_instruction: string | null;
  status: CampaignContactStatus;
  attempts: number;
  call_ids: string[];
}

export interface CampaignRecord {
  id: string;
  name: string;
  agent_id: string;
  status: CampaignStatus;
  start_date_time: number | null;
  time_zone: string | null;
  retries: number;
  file_name: string;
  contacts: CampaignContact[];
  /** Indexes of contacts ready to dial now, in the order they will be dialled. */
  ready: number[];
  created_at: number;
  updated_at: number;
  started_at: number | null;
  paused_at: number | null;
  completed_at: number | null;
  startTimer: Timer | null;
}

export interface KnowledgeRecord {
  id: string;
  name: string;
  content: string;
  created_at: number;
  updated_at: number;
}

export interface PhoneNumberRecord {
  id: string;
  phone_number: string;
  friendly_name: string;
  country: string;
  created_at: number;
}

export interface WidgetSessionRecord {
  token: string;
  agent_id: string;
  origin: string;
  created_at: number;
  expires_at: number;
  consumed_at: number | null;
}

export interface WidgetState {
  allowed_origins: string[];
  max_session_minutes: number;
  max_daily_sessions: number;
  widget_key: string;
  updated_at: number;
  sessions: WidgetSessionRecord[];
}

export interface TtsFile {
  id: string;
  audio: Buffer;
  created_at: number;
}

export interface EmulatorSettings {
  rateLimitPerMinute: number;
  /** Requests per fixed hour; null: ten times the minute limit (the contract's first tier, 100 and 1,000). */
  rateLimitPerHour: number | null;
  credits: number;
  concurrency: number;
  webhookUrl: string | null;
  webhookSecret: string | null;
  /** Share of dialled calls that are answered. */
  answerRate: number;
  costPerMinuteInr: number;
  ttsCostPerSecondInr: number;
  retryDelaySeconds: number;
}

export const SETTING_KEYS = [
  'rateLimitPerMinute',
  'rateLimitPerHour',
  'credits',
  'concurrency',
  'webhookUrl',
  'webhookSecret',
  'answerRate',
  'costPerMinuteInr',
  'ttsCostPerSecondInr',
  'retryDelaySeconds',
] as const satisfies readonly (keyof EmulatorSettings)[];

export const DEFAULT_SETTINGS: EmulatorSettings = {
  rateLimitPerMinute: 100,
  rateLimitPerHour: null,
  credits: 10_000,
  concurrency: 10,
  webhookUrl: null,
  webhookSecret: null,
  answerRate: 0.8,
  costPerMinuteInr: 4.5,
  ttsCostPerSecondInr: 0.05,
  retryDelaySeconds: 600,
};

export interface Account {
  settings: EmulatorSettings;
  agents: Map<string, AgentRecord>;
  calls: Map<string, CallRecord>;
  contacts: Map<string, ContactRecord>;
  campaigns: Map<string, CampaignRecord>;
  knowledge: Map<string, KnowledgeRecord>;
  phoneNumbers: PhoneNumberRecord[];
  widget: WidgetState;
  ttsFiles: Map<string, TtsFile>;
  /** Calls waiting for a free line, in arrival order. */
  dialQueue: string[];
  /** The plan's fixed windows (local/emulator/rate-limit.ts); the hour's fields appear with the first request. */
  rateWindow: { start: number; count: number; hourStart?: number; hourCount?: number };
}

export const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());
