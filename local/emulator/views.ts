import { FINISHED_CALL_STATUSES } from '#commons/voice-api/contract.ts';
import {
  type AgentRecord,
  type CallRecord,
  type CampaignRecord,
  type ContactRecord,
  iso,
  type KnowledgeRecord,
  type WidgetState,
} from './state.ts';

/** Renders records as the service's JSON (ISO timestamps, no internal bookkeeping). */

export function agentView(a: AgentRecord): Record<string, unknown> {
  return { ...a, created_at: iso(a.created_at), updated_at: iso(a.updated_at) };
}

export function callView(c: CallRecord): Record<string, unknown> {
  const { timers: _timers, answered_at: _answered, ...rest } = c;
  return {
    ...rest,
    created_at: iso(c.created_at),
    started_at: iso(c.started_at),
    ended_at: iso(c.ended_at),
  };
}

/** A finished call returns everything; an unfinished one only its status (as the contract says). */
export function callDetailView(c: CallRecord): Record<string, unknown> {
  return FINISHED_CALL_STATUSES.includes(c.status) ? callView(c) : { id: c.id, status: c.status };
}

export function campaignView(c: CampaignRecord): Record<string, unknown> {
  return {
    id: c.id,
    name: c.name,
    agent_id: c.agent_id,
    status: c.status,
    start_date_time: iso(c.start_date_time),
    time_zone: c.time_zone,
    retries: c.retries,
    total_contacts: c.contacts.length,
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
    started_at: iso(c.started_at),
    paused_at: iso(c.paused_at),
    completed_at: iso(c.completed_at),
  };
}

export function campaignStatsView(c: CampaignRecord): Record<string, unknown> {
  const counts = { pending: 0, in_progress: 0, completed: 0, failed: 0, cancelled: 0 };
  for (const contact of c.contacts) counts[contact.status]++;
  return { campaign_id: c.id, status: c.status, total: c.contacts.length, ...counts };
}

export function contactView(c: ContactRecord): Record<string, unknown> {
  return { ...c, tags: [...c.tags], notes: [...c.notes], created_at: iso(c.created_at), updated_at: iso(c.updated_at) };
}

export function knowledgeView(k: KnowledgeRecord): Record<string, unknown> {
  return { ...k, created_at: iso(k.created_at), updated_at: iso(k.updated_at) };
}

export function widgetConfigView(w: WidgetState): Record<string, unknown> {
  return {
    allowed_origins: [...w.allowed_origins],
    max_session_minutes: w.max_session_minutes,
    max_daily_sessions: w.max_daily_sessions,
    widget_key: w.widget_key,
    updated_at: iso(w.updated_at),
  };
}
