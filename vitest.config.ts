import { defineConfig } from 'vitest/config';
import { SlowestFirst } from './test/helpers/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The stack files run whole campaigns on simulated time, the real AWS CLI and Chromium: seconds each, more on a
    // busy machine. `npm run test:unit` holds the unit files to 20 s.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // Each file starts its own stand-ins on free ports; two workers match the 2-core machines.
    maxWorkers: 2,
    // Each worker loads the modules once for all its files (the SDK, the stand-ins, the calling-hours tables took
    // a fifth of the run, loaded again for every file). Files share no state: each starts its own stand-ins. For
    // the same reason `npm test` is one run of both suites, not two runs or two Vitest projects (each loads the
    // modules again), and the unit files fill the gaps the stack files leave on the workers.
    isolate: false,
    sequence: { sequencer: SlowestFirst },
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
