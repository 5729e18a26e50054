import { defineConfig } from 'vitest/config';
import { SlowestFirst } from './test/helpers/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Each file starts its own stand-ins on free ports; two workers match the 2-core machines.
    maxWorkers: 2,
    // Each worker loads the modules once for all its files (the SDK, the stand-ins, the calling-hours tables took
    // a fifth of the run, loaded again for every file). Files share no state: each starts its own stand-ins.
    isolate: false,
    sequence: { sequencer: SlowestFirst },
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
