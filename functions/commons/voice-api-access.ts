import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { type AwsSettings, secretsClient } from './aws/clients.ts';
import { ConfigError, type EnvReader, wholeNumber } from './config.ts';
import { activeObservability, countApiStatus, type Observability } from './observability.ts';

/**
 * The Voice API key at run time. In AWS it lives in a Secrets Manager secret (JSON `{"apiKey": …}`) that the
 * operator fills and rotates (docs/operations.md); callsheet reads it, keeps it for `VOICE_API_KEY_TTL_SECONDS`,
 * and re-reads it at once when the API answers 401 (at most once per request), so a rotation costs one failed
 * request, not a failed campaign. Locally the key comes from VOICE_API_KEY. The value is never logged.
 */
export interface VoiceApiAccess {
  baseUrl: string;
  /** The key as read at start-up. Give it to the client with `fetch`: the fetch swaps in the current key. */
  apiKey: string;
  webhookSecret: string | null;
  /** A fetch for the Voice API client: the current key, one re-read and retry on 401, API status metrics. */
  fetch: typeof fetch;
}

/** Where the key lives: in the environment (local runs only) or in a Secrets Manager secret (AWS). */
export type VoiceApiSource =
  | { baseUrl: string; apiKey: string; webhookSecret: string | null }
  | { baseUrl: string; secretArn: string; keyTtlMs: number };

export const DEFAULT_KEY_TTL_SECONDS = 300;

export function readVoiceApiSource(env: EnvReader): VoiceApiSource {
  const baseUrl = env.required('VOICE_API_URL');
  // Checked with a key in the environment too: a bad value is named wherever it is set, not first in AWS.
  const ttl = env.checked('VOICE_API_KEY_TTL_SECONDS', wholeNumber(1));
  const apiKey = env.optional('VOICE_API_KEY');
  if (apiKey) return { baseUrl, apiKey, webhookSecret: env.optional('VOICE_API_WEBHOOK_SECRET') ?? null };
  return {
    baseUrl,
    secretArn: env.required('VOICE_API_SECRET_ARN'),
    keyTtlMs: (ttl ?? DEFAULT_KEY_TTL_SECONDS) * 1000,
  };
}

export interface SecretValue {
  apiKey: string;
  webhookSecret: string | null;
}

/** Reads and checks the secret; a malformed value is named by field, its text is never echoed. */
export function secretReader(secretArn: string, aws: AwsSettings): () => Promise<SecretValue> {
  const client = secretsClient(aws);
  return async () => {
    const out = await client.send(new GetSecretValueCommand({ SecretId: secretArn }));
    let parsed: { apiKey?: unknown; webhookSecret?: unknown } = {};
    try {
      parsed = JSON.parse(out.SecretString ?? '{}');
    } catch {
      // reported below without echoing the secret text
    }
    if (typeof parsed.apiKey !== 'string' || parsed.apiKey === '')
      throw new ConfigError([
        `secret ${secretArn} has no "apiKey" string (docs/operations.md, "Rotate the Voice API key")`,
      ]);
    return {
      apiKey: parsed.apiKey,
      webhookSecret: typeof parsed.webhookSecret === 'string' ? parsed.webhookSecret : null,
    };
  };
}

/**
 * The secret's value, kept for `ttlMs`. Concurrent reads share one Secrets Manager call; `refresh(since)` re-reads
 * unless a read finished after `since` (another request already picked up the rotation).
 */
export class CachedSecretValue {
  private value: SecretValue | null = null;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<SecretValue> | null = null;
  reads = 0;

  constructor(
    private readonly read: () => Promise<SecretValue>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async current(): Promise<SecretValue> {
    if (this.value && this.now() - this.readAt < this.ttlMs) return this.value;
    return this.reload();
  }

  async refresh(since: number): Promise<SecretValue> {
    if (this.value && this.readAt > since) return this.value;
    return this.reload();
  }

  private reload(): Promise<SecretValue> {
    this.reading ??= (async () => {
      try {
        this.reads++;
        const value = await this.read();
        this.value = value;
        this.readAt = this.now();
        return value;
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }
}

export interface AccessOptions {
  /** Where API status counts go; by default the observability of the running handler. */
  obs?: Observability;
  now?: () => number;
  fetch?: typeof fetch;
  /** Reads the secret; by default Secrets Manager through the AWS settings. */
  readSecret?: () => Promise<SecretValue>;
}

/** Resolves the key for start-up and gives the fetch that keeps it current. */
export async function resolveVoiceApiAccess(
  source: VoiceApiSource,
  aws: AwsSettings,
  options: AccessOptions = {},
): Promise<VoiceApiAccess> {
  const base = options.fetch ?? fetch;
  const metrics = () => options.obs ?? activeObservability();
  if ('apiKey' in source) return { ...source, fetch: accessFetch(base, source.apiKey, null, metrics, options.now) };
  const cache = new CachedSecretValue(
    options.readSecret ?? secretReader(source.secretArn, aws),
    source.keyTtlMs,
    options.now,
  );
  const first = await cache.current();
  return {
    baseUrl: source.baseUrl,
    apiKey: first.apiKey,
    webhookSecret: first.webhookSecret,
    fetch: accessFetch(base, first.apiKey, cache, metrics, options.now),
  };
}

function accessFetch(
  base: typeof fetch,
  startKey: string,
  cache: CachedSecretValue | null,
  metrics: () => Observability | null,
  now: () => number = Date.now,
): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    // Only callsheet's own key is managed; another key (the widget key of the embed snippet) passes untouched.
    const managed = cache !== null && headers.get('x-api-key') === startKey;
    const send = async (key: string | null) => {
      if (key !== null) headers.set('X-API-Key', key);
      try {
        const res = await base(input, { ...init, headers });
        const obs = metrics();
        if (obs) countApiStatus(obs, res.status);
        return res;
      } catch (err) {
        const obs = metrics();
        if (obs) countApiStatus(obs, 0);
        throw err;
      }
    };
    if (!managed) return send(null);
    const sentAt = now();
    const used = (await cache.current()).apiKey;
    const res = await send(used);
    if (res.status !== 401) return res;
    // A 401 means the key was refused and nothing was done: re-read once and repeat the request with the new key.
    const fresh = await cache.refresh(sentAt);
    if (fresh.apiKey === used) return res;
    await res.body?.cancel();
    return send(fresh.apiKey);
  };
}
