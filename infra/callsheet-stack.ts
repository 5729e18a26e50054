import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { CampaignLifecycle } from './campaign-lifecycle.ts';
import { DataTables } from './data-tables.ts';
import { Intake } from './intake.ts';
import { acknowledge, BASIC_EXECUTION_ROLE } from './nag.ts';
import { UploadBucket } from './upload-bucket.ts';
import { VoiceApiCredentials } from './voice-api-credentials.ts';
import { Webhooks } from './webhooks.ts';

/** Deployment settings from CDK context (`cdk deploy -c callsheet:DEFAULT_COUNTRY=IN`), passed to the functions. */
const SETTING_NAMES = ['VOICE_API_URL', 'DEFAULT_COUNTRY', 'DEFAULT_TIME_ZONE', 'DEFAULT_RETRIES', 'DEFAULT_WINDOWS'];

/** Everything callsheet deploys. */
export class CallsheetStack extends Stack {
  public readonly credentials: VoiceApiCredentials;
  public readonly uploads: UploadBucket;
  public readonly data: DataTables;
  public readonly lifecycle: CampaignLifecycle;
  public readonly intake: Intake;
  public readonly webhooks: Webhooks;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    const settings: Record<string, string> = {};
    for (const name of SETTING_NAMES) {
      const value = this.node.tryGetContext(`callsheet:${name}`);
      if (typeof value === 'string' && value !== '') settings[name] = value;
    }
    // No default: a stack pointed at a made-up URL would deploy fine and fail on every upload.
    if (!settings.VOICE_API_URL)
      throw new Error('Set the Voice API URL: cdk synth|deploy -c callsheet:VOICE_API_URL=https://… (README, Deploy)');
    this.credentials = new VoiceApiCredentials(this, 'VoiceApiCredentials');
    this.uploads = new UploadBucket(this, 'Uploads');
    this.data = new DataTables(this, 'Data');
    this.lifecycle = new CampaignLifecycle(this, 'Lifecycle', {
      bucket: this.uploads.bucket,
      campaigns: this.data.tables.campaigns,
      credentials: this.credentials,
      settings,
    });
    this.intake = new Intake(this, 'Intake', {
      uploads: this.uploads,
      uploadsTable: this.data.tables.uploads,
      suppressionTable: this.data.tables.suppression,
      lifecycle: this.lifecycle.stateMachine,
      credentials: this.credentials,
      settings,
    });
    this.webhooks = new Webhooks(this, 'Webhooks', {
      outcomesTable: this.data.tables.outcomes,
      suppressionTable: this.data.tables.suppression,
      credentials: this.credentials,
      settings,
    });
    // CDK's own singleton that configures bucket notifications.
    const notifications = this.node.tryFindChild('BucketNotificationsHandler050a0587b7544547bf325f094a3db834');
    if (notifications)
      acknowledge(notifications, 'CDK’s bucket-notification helper only writes its own logs with this policy.', [
        BASIC_EXECUTION_ROLE,
      ]);
  }
}
