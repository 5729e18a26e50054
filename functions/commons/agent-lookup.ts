import type { AgentsApi } from './voice-api/agents.ts';
import { NotFoundError } from './voice-api/errors.ts';
import type { Agent } from './voice-api/types.ts';

export type AgentProblemCode = 'unknown_agent' | 'ambiguous_agent' | 'inactive_agent';

export type AgentLookup = { ok: true; agent: Agent } | { ok: false; code: AgentProblemCode; message: string };

/**
 * Finds the agent an upload names, by id or else by its unique name, and checks it is active. Problems come back
 * as messages the uploader can act on; API failures (auth, network) are thrown.
 */
export async function lookUpAgent(agents: AgentsApi, ref: string): Promise<AgentLookup> {
  let agent: Agent | null = null;
  try {
    agent = await agents.get(ref);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
  if (!agent) {
    const wanted = ref.trim().toLowerCase();
    const named = (await agents.list()).filter((a) => a.name.trim().toLowerCase() === wanted);
    if (named.length === 0)
      return {
        ok: false,
        code: 'unknown_agent',
        message: `No agent has the id or name "${ref}". Put the file in a folder named after an existing agent: incoming/<agent id or name>/<file>.`,
      };
    if (named.length > 1)
      return {
        ok: false,
        code: 'ambiguous_agent',
        message: `${named.length} agents are named "${ref}" (${named.map((a) => a.id).join(', ')}). Use the agent's id as the folder name instead.`,
      };
    agent = named[0] as Agent;
  }
  if (!agent.is_active)
    return {
      ok: false,
      code: 'inactive_agent',
      message: `Agent "${agent.name}" (${agent.id}) is not active. Activate it in the dashboard, then upload the file again.`,
    };
  return { ok: true, agent };
}
