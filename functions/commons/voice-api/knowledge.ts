import type { Transport } from './http.ts';
import { pathId, RequestChecks } from './request-checks.ts';
import type { KnowledgeBase, KnowledgeInput } from './types.ts';

export class KnowledgeApi {
  constructor(private readonly http: Transport) {}

  async list(): Promise<KnowledgeBase[]> {
    return (await this.http.send<KnowledgeBase[]>({ method: 'GET', path: '/knowledge', repeatability: 'repeatable' }))
      .data;
  }

  async create(input: KnowledgeInput): Promise<KnowledgeBase> {
    new RequestChecks()
      .check(Boolean(input.name), ['body', 'name'], 'name is required', 'missing')
      .check(typeof input.content === 'string', ['body', 'content'], 'content is required', 'missing')
      .done();
    return (
      await this.http.send<KnowledgeBase>({
        method: 'POST',
        path: '/knowledge',
        json: input,
        repeatability: 'repeatable',
      })
    ).data;
  }

  async get(id: string): Promise<KnowledgeBase> {
    return (
      await this.http.send<KnowledgeBase>({
        method: 'GET',
        path: `/knowledge/${pathId(id)}`,
        repeatability: 'repeatable',
      })
    ).data;
  }

  async update(id: string, changes: Partial<KnowledgeInput>): Promise<KnowledgeBase> {
    return (
      await this.http.send<KnowledgeBase>({
        method: 'PATCH',
        path: `/knowledge/${pathId(id)}`,
        json: changes,
        repeatability: 'repeatable',
      })
    ).data;
  }

  /** Irreversible; agents using it keep working without that information. */
  async delete(id: string): Promise<void> {
    await this.http.send({ method: 'DELETE', path: `/knowledge/${pathId(id)}`, repeatability: 'repeatable' });
  }
}
