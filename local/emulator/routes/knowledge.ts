import { LIMITS } from '#commons/voice-api/contract.ts';
import type { EmulatorCore } from '../core.ts';
import { Fields } from '../fields.ts';
import { notFound, type RequestContext, type Router } from '../http-kit.ts';
import type { KnowledgeRecord } from '../state.ts';
import { knowledgeView } from '../views.ts';

export function knowledgeRoutes(router: Router, core: EmulatorCore): void {
  const find = (ctx: RequestContext): KnowledgeRecord => {
    const k = core.account.knowledge.get(ctx.params.knowledgeId as string);
    if (!k) throw notFound('Knowledge base');
    return k;
  };
  const read = (body: unknown, creating: boolean): { name?: string; content?: string } => {
    const f = new Fields(body, ['body']);
    f.forbidOthers(['name', 'content']);
    const name = f.string('name', { required: creating, nonBlank: true, max: 200 });
    const content = f.string('content', { required: creating, max: LIMITS.knowledgeContentChars });
    f.done();
    return { ...(name ? { name } : {}), ...(typeof content === 'string' ? { content } : {}) };
  };

  router.on('GET', '/knowledge', () => ({
    status: 200,
    body: [...core.account.knowledge.values()].map(knowledgeView),
  }));

  router.on('POST', '/knowledge', (ctx) => {
    const input = read(ctx.json(), true);
    const now = core.clock.now();
    const kb: KnowledgeRecord = {
      id: core.ids.next('kb'),
      name: input.name as string,
      content: input.content as string,
      created_at: now,
      updated_at: now,
    };
    core.account.knowledge.set(kb.id, kb);
    return { status: 201, body: knowledgeView(kb) };
  });

  router.on('GET', '/knowledge/:knowledgeId', (ctx) => ({ status: 200, body: knowledgeView(find(ctx)) }));

  router.on('PATCH', '/knowledge/:knowledgeId', (ctx) => {
    const kb = find(ctx);
    Object.assign(kb, read(ctx.json(), false), { updated_at: core.clock.now() });
    return { status: 200, body: knowledgeView(kb) };
  });

  router.on('DELETE', '/knowledge/:knowledgeId', (ctx) => {
    const kb = find(ctx);
    core.account.knowledge.delete(kb.id);
    // Agents keep working without it.
    for (const agent of core.account.agents.values()) {
      if (agent.knowledge_base_ids?.includes(kb.id)) {
        agent.knowledge_base_ids = agent.knowledge_base_ids.filter((id) => id !== kb.id);
      }
    }
    return { status: 204 };
  });
}
