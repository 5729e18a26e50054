#!/usr/bin/env node
// The CLI is TypeScript; tsx compiles it on the fly so `npm ci` is the only build step.
import { register } from 'tsx/esm/api';

// Node 20 runs the CLI here; Lambda runs Node 22. The SDK's notice about its future Node support is not for users.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const { main } = await import('../local/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
