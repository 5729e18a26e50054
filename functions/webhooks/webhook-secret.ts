import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { type AwsSettings, secretsClient } from '#commons/aws/clients.ts';

/** Where the signing secret lives: the environment (local runs) or the Voice API secret's `webhookSecret` field. */
export type WebhookSecretSource = { value: string } | { secretArn: string };

export type SecretLoader = () => Promise<string>;

export function secretLoader(source: WebhookSecretSource, aws: AwsSettings): SecretLoader {
  if ('value' in source) return async () => source.value;
  const client = secretsClient(aws);
  return async () => {
    const out = await client.send(new GetSecretValueCommand({ SecretId: source.secretArn }));
    let parsed: { webhookSecret?: unknown } = {};
    try {
      parsed = JSON.parse(out.SecretString ?? '{}');
    } catch {
      // reported below without echoing the secret text
    }
    if (typeof parsed.webhookSecret !== 'string' || parsed.webhookSecret === '')
      throw new Error(`secret ${source.secretArn} has no "webhookSecret" string (README, Deploy)`);
    return parsed.webhookSecret;
  };
}

export interface SecretCacheOptions {
  /** How long a read value is used before it is read again. */
  ttlMs: number;
  /**
   * The least time between two re-reads forced by a failed verification, so a flood of badly signed requests
   * cannot turn into a flood of Secrets Manager calls.
   */
  minRefreshMs: number;
  now?: () => number;
}

/** The webhook secret, read once per TTL and re-read (at most once per `minRefreshMs`) after a rotation. */
export class CachedSecret {
  private value: string | null = null;
  private readAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<string> | null = null;
  private readonly now: () => number;

  constructor(
    private readonly load: SecretLoader,
    private readonly options: SecretCacheOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async current(): Promise<string> {
    if (this.value !== null && this.now() - this.readAt < this.options.ttlMs) return this.value;
    return this.read();
  }

  /** Re-reads after a failed verification; null when it is too soon to ask again or the value did not change. */
  async refreshed(): Promise<string | null> {
    if (this.now() - this.readAt < this.options.minRefreshMs) return null;
    const before = this.value;
    const after = await this.read();
    return after === before ? null : after;
  }

  private read(): Promise<string> {
    // Concurrent requests share one read.
    this.pending ??= this.load()
      .then((v) => {
        this.value = v;
        this.readAt = this.now();
        return v;
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }
}
