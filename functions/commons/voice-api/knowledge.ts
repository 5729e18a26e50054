import type { Transport } from './http.ts';
import { pathId, RequestChecks } from './request-checks.ts';
import type { KnowledgeBase, KnowledgeInput } from './types.ts';

export class KnowledgeApi {
  constructor(private readonly http: Transport) {}

  async list(): Promise<KnowledgeBase[]> {
    return this.http.data<KnowledgeBase[]>({ method: 'GET', path: '/knowledge', repeatability: 'repeatable' });
  }

  async create(input: KnowledgeInput): Promise<KnowledgeBase> {
    new RequestChecks()
      .check(Boolean(input.name), ['body', 'name'], 'name is required', 'missing')
      .check(typeof input.content === 'string', ['body', 'content'], 'content is required', 'missing')
      .done();
    return this.http.data<KnowledgeBase>({
      method: 'POST',
      path: '/knowledge',
      json: input,
      repeatability: 'repeatable',
    });
  }

  async get(id: string): Promise<KnowledgeBase> {
    return this.http.data<KnowledgeBase>({
      method: 'GET',
      path: `/knowledge/${pathId(id)}`,
      repeatability: 'repeatable',
    });
  }

  async update(id: string, changes: Partial<KnowledgeInput>): Promise<KnowledgeBase> {
    return this.http.data<KnowledgeBase>({
      method: 'PATCH',
      path: `/knowledge/${pathId(id)}`,
      json: changes,
      repeatability: 'repeatable',
    });
  }

  /** Irreversible; agents using it keep working without that information. */
  async delete(id: string): Promise<void> {
    await this.http.send({ method: 'DELETE', path: `/knowledge/${pathId(id)}`, repeatability: 'repeatable' });
  }
}
