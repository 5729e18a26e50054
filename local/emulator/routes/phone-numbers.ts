import type { EmulatorCore } from '../core.ts';
import type { Router } from '../http-kit.ts';
import { iso } from '../state.ts';

export function phoneNumberRoutes(router: Router, core: EmulatorCore): void {
  router.on('GET', '/phone-numbers', () => ({
    status: 200,
    body: core.account.phoneNumbers.map((p) => ({ ...p, created_at: iso(p.created_at) })),
  }));
}
