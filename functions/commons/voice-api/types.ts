import type { CallStatus, CampaignStatus, WebhookEventType } from './contract.ts';

/**
 * Response shapes. Every response object also keeps the fields this version does not name (the contract asks
 * clients to preserve them): they are returned as received, never copied field by field.
 */
type Open = { [unknown: string]: unknown };

export interface Agent extends Open {
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
  created_at: string;
  greeting_audio_generated: boolean;
}

export interface AgentInput {
  name: string;
  phone_number_id?: string | null;
  tts_provider?: string | null;
  voice?: string | null;
  tts_language?: string | null;
  greeting_line?: string | null;
  agent_prompt?: string | null;
  analysis_prompt?: string | null;
  transcription_languages?: string[];
  knowledge_base_ids?: string[] | null;
  interruptions_enabled?: boolean;
  background_music_enabled?: boolean;
  hard_end_call_minutes?: number | null;
  enable_video_avatar?: boolean;
}
export type AgentUpdate = Partial<AgentInput>;

export interface AgentToggle extends Open {
  id: string;
  is_active: boolean;
}

export interface TranscriptLine {
  speaker: 'agent' | 'user';
  text: string;
  timestamp: string;
}

export interface Call extends Open {
  id: string;
  status: CallStatus;
  agent_id?: string;
  campaign_id?: string | null;
  phone_number?: string;
  from_number?: string | null;
  contact_name?: string | null;
  custom_instructions?: string | null;
  created_at?: string;
  started_at?: string | null;
  ended_at?: string | null;
  duration?: number | null;
  cost?: number | null;
  transcript?: TranscriptLine[] | null;
  recording_url?: string | null;
  summary?: string | null;
  failure_reason?: string | null;
}

export interface CallInput {
  agent_id: string;
  phone_number: string;
  contact_name?: string;
  custom_instructions?: string;
}

export interface BulkCallEntry {
  phone_number: string;
  contact_name?: string;
  custom_instructions?: string;
}

export interface BulkResult extends Open {
  total: number;
  succeeded: number;
  failed: number;
  results: ({ index: number; phone_number: string; success: boolean; error?: string } & Open)[];
}

export interface CallListQuery {
  page?: number;
  limit?: number;
  status_filter?: CallStatus;
  start_date?: string | Date;
  end_date?: string | Date;
}

export interface CallList extends Open {
  calls: Call[];
  page: number;
  limit: number;
  total: number;
  total_pages: number;
}

export interface CallStats extends Open {
  total_calls: number;
  completed_calls: number;
  failed_calls: number;
  success_rate: number;
  average_duration: number;
  total_cost: number;
}

export interface ContactInput {
  phone_number: string;
  contact_name?: string;
  email?: string;
  city?: string;
  location?: string;
  source?: string;
  lead_status?: string;
  custom_instruction?: string;
  tags?: string[];
  note?: string;
}

export interface Contact extends Open {
  phone_number: string;
  tags: string[];
  notes: string[];
}

export interface ContactUpsertResult extends Open {
  contact: Contact;
  created: boolean;
}

export interface CampaignInput {
  /** The contact sheet (.xlsx or .xls). */
  file: Uint8Array | Blob;
  fileName: string;
  agent_id: string;
  name: string;
  /** Give both or neither; neither starts the campaign at once. */
  start_date_time?: string;
  time_zone?: string;
  retries?: number;
}

export interface CampaignUpdate {
  name?: string;
  retries?: number;
  start_date_time?: string;
  time_zone?: string;
}

export interface Campaign extends Open {
  id: string;
  name: string;
  agent_id: string;
  status: CampaignStatus;
  start_date_time: string | null;
  time_zone: string | null;
  retries: number;
  total_contacts: number;
  created_at: string;
}

export interface CampaignStats extends Open {
  pending: number;
  in_progress: number;
  completed: number;
  failed: number;
  total: number;
}

export interface ActionResult extends Open {
  id: string;
  status: string;
}

export interface KnowledgeBase extends Open {
  id: string;
  name: string;
  content: string;
}
export interface KnowledgeInput {
  name: string;
  content: string;
}

export interface PhoneNumber extends Open {
  id: string;
  phone_number: string;
}

export interface TtsVoice extends Open {
  value: string;
  lang: string;
}
export interface TtsProvider extends Open {
  key: string;
  voices: TtsVoice[];
  languages: ({ id: string } & Open)[];
}
export interface TtsConfig extends Open {
  providers: TtsProvider[];
}

export interface TtsInput {
  /** The script, at most 6000 characters. */
  text: string;
  /** A voice `value` of the single-shot provider. */
  actor: string;
  /** That voice's `lang`. */
  language: string;
}

export interface TtsAudio {
  audio: Uint8Array;
  contentType: string;
  durationSeconds: number;
  costInr: number;
  s3Url: string | null;
  requestId: string | null;
}

export interface WidgetConfig extends Open {
  allowed_origins: string[];
  max_session_minutes: number;
  max_daily_sessions: number;
}
export type WidgetConfigInput = Partial<
  Pick<WidgetConfig, 'allowed_origins' | 'max_session_minutes' | 'max_daily_sessions'>
>;

export interface WidgetSessionInput {
  agent_id: string;
  origin: string;
  force_audio?: boolean;
}
export interface WidgetSession extends Open {
  session_token: string;
}
export interface EmbedSnippet extends Open {
  snippet: string;
}

export interface WebhookEvent {
  event: WebhookEventType;
  timestamp: string;
  data: {
    call_id: string;
    agent_id: string;
    duration: number | null;
    status: string;
    transcript_url: string | null;
    recording_url: string | null;
    metadata: Record<string, unknown>;
  };
}
