import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest (whole campaigns in child processes, the real AWS CLI and Chromium, the fault
 * rehearsals), heaviest first. Vitest orders by the durations it cached on an earlier run, and with no cache (a
 * fresh clone, as CI is) by file size, which put the CLI runs among the last files: one worker then ran them alone
 * while the other sat idle. A file missing from this list only runs in Vitest's own order.
 */
export const SLOWEST = [
  'test/local/local-command.test.ts',
  'test/run-cli.test.ts',
  'test/lifecycle/safety.test.ts',
  'test/contacts/sync-during-campaign.test.ts',
  'test/lifecycle/calling-hours.test.ts',
  'test/lifecycle/control.test.ts',
  'test/intake/hostile-workbooks.test.ts',
  'test/lifecycle/plan-spent.test.ts',
  'test/lifecycle/windows.test.ts',
  'test/intake/output-size.test.ts',
];

/** Longest first, so the two workers finish together (vitest.config.ts). */
export class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const i = SLOWEST.indexOf(relative(this.ctx.config.root, spec.moduleId));
      return i < 0 ? SLOWEST.length : i;
    };
    // Array sort is stable: the rest keep Vitest's order.
    return base.sort((a, b) => rank(a) - rank(b));
  }
}
