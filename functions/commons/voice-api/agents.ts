import type { Transport } from './http.ts';
import { pathId, RequestChecks } from './request-checks.ts';
import type { Agent, AgentInput, AgentToggle, AgentUpdate } from './types.ts';

export class AgentsApi {
  constructor(private readonly http: Transport) {}

  async list(): Promise<Agent[]> {
    return this.http.data<Agent[]>({ method: 'GET', path: '/agents', repeatability: 'repeatable' });
  }

  async create(input: AgentInput): Promise<Agent> {
    new RequestChecks()
      .check(
        typeof input.name === 'string' && input.name.trim() !== '',
        ['body', 'name'],
        'name is required',
        'missing',
      )
      .done();
    // Creating an agent twice is harmless to contacts (nobody is dialled) and easy to spot by name.
    return this.http.data<Agent>({ method: 'POST', path: '/agents', json: input, repeatability: 'repeatable' });
  }

  async get(agentId: string): Promise<Agent> {
    return this.http.data<Agent>({ method: 'GET', path: `/agents/${pathId(agentId)}`, repeatability: 'repeatable' });
  }

  async update(agentId: string, changes: AgentUpdate): Promise<Agent> {
    return this.http.data<Agent>({
      method: 'PATCH',
      path: `/agents/${pathId(agentId)}`,
      json: changes,
      repeatability: 'repeatable',
    });
  }

  async delete(agentId: string): Promise<void> {
    await this.http.send({ method: 'DELETE', path: `/agents/${pathId(agentId)}`, repeatability: 'repeatable' });
  }

  /**
   * Flips `is_active`. Not repeatable (a second flip undoes the first): it is sent once, and a caller that must
   * reach a given state should read the agent back.
   */
  async toggle(agentId: string): Promise<AgentToggle> {
    return this.http.data<AgentToggle>({
      method: 'PATCH',
      path: `/agents/${pathId(agentId)}/toggle`,
      repeatability: 'once',
    });
  }

  /** Brings an agent to the wanted activity, toggling only when it differs. */
  async setActive(agentId: string, active: boolean): Promise<Agent> {
    const agent = await this.get(agentId);
    if (agent.is_active === active) return agent;
    await this.toggle(agentId);
    return this.get(agentId);
  }
}
