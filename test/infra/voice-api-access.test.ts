import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AwsSettings } from '#commons/aws/clients.ts';
import { EnvReader } from '#commons/config.ts';
import { makeObservability } from '#commons/observability.ts';
import { AuthenticationError, VoiceApiClient } from '#commons/voice-api/index.ts';
import { readVoiceApiSource, resolveVoiceApiAccess, type VoiceApiSource } from '#commons/voice-api-access.ts';
import { buildLifecycleSteps } from '#lifecycle/build-steps.ts';
import { readLifecycleConfig } from '#lifecycle/config.ts';
import { TEST_KEY, useEmulator } from '../helpers/emulator.ts';

const fixture = useEmulator();

/**
 * A Secrets Manager stand-in speaking the service's JSON protocol on 127.0.0.1: the SDK's real
 * GetSecretValue request goes over HTTP to it. It holds one secret and counts the reads.
 */
class SecretsStandIn {
  value = JSON.stringify({ apiKey: TEST_KEY, webhookSecret: 'whsec' });
  reads = 0;
  targets: string[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        this.targets.push(String(req.headers['x-amz-target']));
        const { SecretId } = JSON.parse(body) as { SecretId: string };
        this.reads++;
        res.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify({ ARN: SecretId, Name: 'callsheet/voice-api', SecretString: this.value }));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

const secrets = new SecretsStandIn();
beforeAll(() => secrets.start());
afterAll(() => secrets.close());

const aws = (): AwsSettings => ({
  region: 'eu-west-1',
  endpoints: { secretsmanager: secrets.url },
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:callsheet-voice-api-AbCdEf';

/** The vendor rotates the key: the emulator accepts only the new one from now on. */
function vendorRotates(key: string): void {
  (fixture.emu.core as { apiKey: string }).apiKey = key;
}

async function client(source: VoiceApiSource, now: () => number, obs = makeObservability('access-test', {})) {
  const access = await resolveVoiceApiAccess(source, aws(), { now, obs });
  return {
    access,
    api: new VoiceApiClient({
      baseUrl: access.baseUrl,
      apiKey: access.apiKey,
      fetch: access.fetch,
      requestsPerMinute: 0,
      maxRetries: 0,
    }),
  };
}

describe('Voice API key from Secrets Manager', () => {
  it('reads the secret once, keeps it for the TTL, then reads it again', async () => {
    vendorRotates(TEST_KEY);
    secrets.value = JSON.stringify({ apiKey: TEST_KEY });
    secrets.reads = 0;
    let t = 0;
    const { api } = await client({ baseUrl: fixture.emu.url, secretArn: ARN, keyTtlMs: 300_000 }, () => t);
    await api.agents.list();
    await api.agents.list();
    expect(secrets.reads).toBe(1);
    expect(secrets.targets.at(-1)).toBe('secretsmanager.GetSecretValue');
    t += 300_000;
    await api.agents.list();
    expect(secrets.reads).toBe(2);
  });

  it('the lifecycle function reads the secret once at start, its part end included', async () => {
    secrets.value = JSON.stringify({ apiKey: TEST_KEY });
    secrets.reads = 0;
    const config = readLifecycleConfig({
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
      VOICE_API_URL: fixture.emu.url,
      VOICE_API_SECRET_ARN: ARN,
      CAMPAIGNS_TABLE: 'campaigns',
      API_BUDGET_TABLE: 'budget',
      OUTCOMES_TABLE: 'outcomes',
      SUPPRESSION_TABLE: 'suppression',
    });
    expect(config.outcomes).not.toBeNull();
    await buildLifecycleSteps(config);
    expect(secrets.reads).toBe(1);
  });

  it('after a rotation, re-reads on the first 401 and repeats that request with the new key', async () => {
    vendorRotates(TEST_KEY);
    secrets.value = JSON.stringify({ apiKey: TEST_KEY });
    secrets.reads = 0;
    const t = 0;
    const { api } = await client({ baseUrl: fixture.emu.url, secretArn: ARN, keyTtlMs: 3_600_000 }, () => t);
    await api.agents.list();
    vendorRotates('rotated-key-2');
    secrets.value = JSON.stringify({ apiKey: 'rotated-key-2' });
    await expect(api.agents.list()).resolves.toBeDefined();
    expect(secrets.reads).toBe(2);
    await api.agents.list();
    expect(secrets.reads).toBe(2);
  });

  it('re-reads only once per request when the new value is refused too, and the 401 reaches the caller', async () => {
    vendorRotates('vendor-only-key');
    secrets.value = JSON.stringify({ apiKey: TEST_KEY });
    secrets.reads = 0;
    let t = 0;
    const { api } = await client({ baseUrl: fixture.emu.url, secretArn: ARN, keyTtlMs: 3_600_000 }, () => t++);
    expect(secrets.reads).toBe(1);
    await expect(api.agents.list()).rejects.toBeInstanceOf(AuthenticationError);
    expect(secrets.reads).toBe(2);
    await expect(api.agents.list()).rejects.toBeInstanceOf(AuthenticationError);
    expect(secrets.reads).toBe(3);
  });

  it('fails at start-up naming the field, without echoing the secret text', async () => {
    secrets.value = '{"apikey": "sk-live-do-not-print"}';
    const failure = resolveVoiceApiAccess({ baseUrl: fixture.emu.url, secretArn: ARN, keyTtlMs: 1000 }, aws());
    await expect(failure).rejects.toThrow(/has no "apiKey" string/);
    await failure.catch((err: Error) => expect(err.message).not.toContain('sk-live'));
  });

  it('counts API answers by status for the error-rate alarms', async () => {
    vendorRotates(TEST_KEY);
    secrets.value = JSON.stringify({ apiKey: TEST_KEY });
    const obs = makeObservability('access-metrics', {});
    const { api } = await client({ baseUrl: fixture.emu.url, secretArn: ARN, keyTtlMs: 3_600_000 }, () => 0, obs);
    vendorRotates('rotated-key-3');
    secrets.value = JSON.stringify({ apiKey: 'rotated-key-3' });
    await api.agents.list();
    const stored = obs.metrics.serializeMetrics() as unknown as Record<string, unknown>;
    expect(stored).toMatchObject({ ApiRequests: [1, 1], ApiClientErrors: 1 });
    expect(stored).not.toHaveProperty('ApiServerErrors');
    obs.metrics.clearMetrics();
  });
});

describe('Voice API key from the environment (local runs)', () => {
  it('uses VOICE_API_KEY as is and reads no secret', async () => {
    vendorRotates(TEST_KEY);
    const env = new EnvReader({ VOICE_API_URL: fixture.emu.url, VOICE_API_KEY: TEST_KEY });
    const source = readVoiceApiSource(env);
    env.done();
    secrets.reads = 0;
    const { api } = await client(source, () => 0);
    await api.agents.list();
    expect(secrets.reads).toBe(0);
  });

  it('asks for the secret ARN when no key is set, and checks the TTL setting', () => {
    const env = new EnvReader({ VOICE_API_URL: 'http://x', VOICE_API_KEY_TTL_SECONDS: 'soon' });
    readVoiceApiSource(env);
    expect(() => env.done()).toThrow(
      /VOICE_API_KEY_TTL_SECONDS="soon".*VOICE_API_SECRET_ARN is not set|VOICE_API_SECRET_ARN is not set.*VOICE_API_KEY_TTL_SECONDS/,
    );
  });
});
