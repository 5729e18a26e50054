import type { EnvReader } from '../config.ts';

export interface AwsSettings {
  region: string;
  /** Set only for the local stack (s3rver, dynalite, the local Step Functions endpoint). */
  endpoints: { s3?: string; dynamodb?: string; sfn?: string; events?: string; secretsmanager?: string };
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** Endpoint overrides use the AWS SDK's own variable names, so the same names work for any AWS tool. */
export function readAwsSettings(env: EnvReader): AwsSettings {
  const accessKeyId = env.optional('AWS_ACCESS_KEY_ID');
  const secretAccessKey = env.optional('AWS_SECRET_ACCESS_KEY');
  const sessionToken = env.optional('AWS_SESSION_TOKEN');
  return {
    region: env.optional('AWS_REGION') ?? 'us-east-1',
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey, sessionToken } } : {}),
    endpoints: {
      s3: env.optional('AWS_ENDPOINT_URL_S3'),
      dynamodb: env.optional('AWS_ENDPOINT_URL_DYNAMODB'),
      sfn: env.optional('AWS_ENDPOINT_URL_SFN'),
      events: env.optional('AWS_ENDPOINT_URL_EVENTBRIDGE'),
      secretsmanager: env.optional('AWS_ENDPOINT_URL_SECRETS_MANAGER'),
    },
  };
}

/**
 * Takes out the SDK's logger middleware: with the default no-op logger it still builds a redacted copy of every
 * request and response to hand to it (a walk of each Scan page and batch), work nobody reads.
 */
export function unlogged<C extends { middlewareStack: { remove(name: string): boolean } }>(client: C): C {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

/**
 * The SDK's HTTP handler writes to the console when all 50 of its sockets to one endpoint are busy and more requests
 * wait. In AWS that is worth a log line; against the local stand-ins (many simulated Lambdas at once on one
 * endpoint) it is expected, and would land in the middle of a user's `callsheet run` output.
 */
const quiet = () => undefined;
const LOCAL_HANDLER = { logger: { trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet } };

export function base(s: AwsSettings, endpoint: string | undefined) {
  return {
    region: s.region,
    ...(endpoint ? { endpoint, requestHandler: LOCAL_HANDLER } : {}),
    ...(s.credentials ? { credentials: s.credentials } : {}),
  };
}
