import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { VoiceApiCredentials } from './voice-api-credentials.ts';

/** Everything callsheet deploys. Intake and the campaign lifecycle join it as they are built. */
export class CallsheetStack extends Stack {
  public readonly credentials: VoiceApiCredentials;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    this.credentials = new VoiceApiCredentials(this, 'VoiceApiCredentials');
  }
}
