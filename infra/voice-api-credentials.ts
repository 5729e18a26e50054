import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/**
 * The Voice Agent API key and webhook signing secret: one Secrets Manager secret `{"apiKey", "webhookSecret"}`
 * that the operator creates once, by name, before the first deploy, and rotates in place (docs/operations.md).
 * The stack only refers to it: the template holds no value, no generated string and no resource for it, so no
 * deploy, redeploy or stack deletion can overwrite or remove the key. Functions get the secret's name and read
 * access; they read the value at run time (functions/commons/voice-api-access.ts).
 */
export class VoiceApiCredentials extends Construct {
  public readonly secret: ISecret;

  constructor(scope: Construct, id: string, props: { secretName: string }) {
    super(scope, id);
    this.secret = Secret.fromSecretNameV2(this, 'Secret', props.secretName);
  }

  /**
   * Gives a function the secret's name in VOICE_API_SECRET_ARN (GetSecretValue takes a name or an ARN; an
   * imported name has no full ARN) and read access to it.
   */
  bindTo(fn: LambdaFunction): void {
    fn.addEnvironment('VOICE_API_SECRET_ARN', this.secret.secretName);
    this.grantRead(fn);
  }

  grantRead(grantee: IGrantable): void {
    this.secret.grantRead(grantee);
  }
}
