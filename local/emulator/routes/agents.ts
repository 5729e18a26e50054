import type { EmulatorCore } from '../core.ts';
import { Fields } from '../fields.ts';
import { conflict, notFound, type RequestContext, type Router } from '../http-kit.ts';
import type { Account, AgentRecord } from '../state.ts';
import { findProvider, TTS_CONFIG } from '../tts-catalog.ts';
import { agentView } from '../views.ts';

const AGENT_FIELDS = [
  'name',
  'phone_number_id',
  'tts_provider',
  'voice',
  'tts_language',
  'greeting_line',
  'agent_prompt',
  'analysis_prompt',
  'transcription_languages',
  'knowledge_base_ids',
  'interruptions_enabled',
  'background_music_enabled',
  'hard_end_call_minutes',
  'enable_video_avatar',
] as const;

/** Reads create/update fields and checks that what they name exists. */
function readAgentFields(
  body: unknown,
  account: Account,
  creating: boolean,
  current?: AgentRecord,
): Partial<AgentRecord> {
  const f = new Fields(body, ['body']);
  f.forbidOthers(AGENT_FIELDS);
  const out: Partial<AgentRecord> = {};
  const name = f.string('name', { required: creating, nonBlank: true, max: 200 });
  if (name) out.name = name;
  for (const key of ['greeting_line', 'agent_prompt', 'analysis_prompt'] as const) {
    const v = f.string(key, { nullable: true, max: 20_000 });
    if (v !== undefined) out[key] = v;
  }
  const phoneId = f.string('phone_number_id', { nullable: true });
  if (phoneId !== undefined) {
    if (phoneId !== null && !account.phoneNumbers.some((p) => p.id === phoneId)) {
      f.fail('phone_number_id', `phone number ${phoneId} is not assigned to this account`);
    } else out.phone_number_id = phoneId;
  }
  const langs = f.stringList('transcription_languages');
  if (langs !== undefined && langs !== null) out.transcription_languages = langs;
  const kbs = f.stringList('knowledge_base_ids', { nullable: true });
  if (kbs !== undefined) {
    const missing = (kbs ?? []).filter((id) => !account.knowledge.has(id));
    if (missing.length > 0) f.fail('knowledge_base_ids', `unknown knowledge base(s): ${missing.join(', ')}`);
    else out.knowledge_base_ids = kbs;
  }
  const interruptions = f.boolean('interruptions_enabled');
  if (interruptions !== undefined) out.allow_interruptions = interruptions;
  const music = f.boolean('background_music_enabled');
  if (music !== undefined) out.background_music = music;
  const avatar = f.boolean('enable_video_avatar');
  if (avatar !== undefined) out.enable_video_avatar = avatar;
  const hardEnd = f.integer('hard_end_call_minutes', { min: 1, max: 120, nullable: true });
  if (hardEnd !== undefined) out.hard_end_call_minutes = hardEnd;

  // Voice settings are checked together against the provider they end up with.
  const provider = f.string('tts_provider', { nullable: true });
  const voice = f.string('voice', { nullable: true });
  const language = f.string('tts_language', { nullable: true });
  if (provider !== undefined) out.tts_provider = provider;
  if (voice !== undefined) out.voice = voice;
  if (language !== undefined) out.tts_language = language;
  const effectiveKey = (provider !== undefined ? provider : current?.tts_provider) ?? TTS_CONFIG.default_provider;
  const entry = findProvider(effectiveKey);
  if (!entry) f.fail('tts_provider', `unknown TTS provider ${JSON.stringify(effectiveKey)}`);
  else {
    if (voice && !entry.voices.some((v) => v.value === voice)) {
      f.fail('voice', `voice ${JSON.stringify(voice)} is not offered by provider ${entry.key}`);
    }
    if (language && !entry.languages.some((l) => l.id === language)) {
      f.fail('tts_language', `language ${JSON.stringify(language)} is not offered by provider ${entry.key}`);
    }
  }
  f.done();
  return out;
}

export function agentRoutes(router: Router, core: EmulatorCore): void {
  const find = (ctx: RequestContext): AgentRecord => {
    const a = core.account.agents.get(ctx.params.agentId as string);
    if (!a) throw notFound('Agent');
    return a;
  };

  router.on('GET', '/agents', () => ({
    status: 200,
    body: [...core.account.agents.values()].map(agentView),
  }));

  router.on('POST', '/agents', (ctx) => {
    const fields = readAgentFields(ctx.json(), core.account, true);
    const now = core.clock.now();
    const agent: AgentRecord = {
      id: core.ids.next('agent'),
      name: fields.name as string,
      phone_number_id: null,
      tts_provider: null,
      voice: null,
      tts_language: null,
      greeting_line: null,
      agent_prompt: null,
      analysis_prompt: null,
      transcription_languages: [],
      knowledge_base_ids: null,
      allow_interruptions: false,
      background_music: false,
      hard_end_call_minutes: null,
      is_active: true,
      enable_video_avatar: false,
      avatar_face_id: null,
      greeting_audio_generated: false,
      created_at: now,
      updated_at: now,
      ...fields,
    };
    agent.greeting_audio_generated = Boolean(agent.greeting_line);
    core.account.agents.set(agent.id, agent);
    return { status: 201, body: agentView(agent) };
  });

  router.on('GET', '/agents/:agentId', (ctx) => ({ status: 200, body: agentView(find(ctx)) }));

  router.on('PATCH', '/agents/:agentId', (ctx) => {
    const agent = find(ctx);
    const changes = readAgentFields(ctx.json(), core.account, false, agent);
    Object.assign(agent, changes);
    // Greeting audio follows the greeting line; a new voice or provider re-renders it.
    agent.greeting_audio_generated = Boolean(agent.greeting_line);
    agent.updated_at = core.clock.now();
    return { status: 200, body: agentView(agent) };
  });

  router.on('DELETE', '/agents/:agentId', (ctx) => {
    core.account.agents.delete(find(ctx).id);
    // A deleted agent is not an inactive one (its campaigns are no longer held back): they may dial again.
    core.dialer.pump();
    return { status: 204 };
  });

  router.on('PATCH', '/agents/:agentId/toggle', (ctx) => {
    const agent = find(ctx);
    agent.is_active = !agent.is_active;
    agent.updated_at = core.clock.now();
    // Its waiting calls and campaigns may dial again, or stop (a pump ends by observing what may dial).
    core.dialer.pump();
    return {
      status: 200,
      body: {
        id: agent.id,
        is_active: agent.is_active,
        message: `agent ${agent.is_active ? 'activated' : 'deactivated'}`,
      },
    };
  });
}

/** The agent a call or campaign names: 404 when unknown, 409 when inactive. */
export function usableAgent(core: EmulatorCore, agentId: string): AgentRecord {
  const agent = core.account.agents.get(agentId);
  if (!agent) throw notFound('Agent');
  if (!agent.is_active) throw conflict(`agent ${agentId} is inactive: activate it before using it for calls`);
  return agent;
}
