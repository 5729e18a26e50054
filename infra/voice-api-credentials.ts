import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/**
 * The Voice Agent API key and webhook secret, held in Secrets Manager. Operators put the real values in after the
 * first deploy (README, "Deploy"); functions get the secret's ARN and read access, never the values themselves.
 */
export class VoiceApiCredentials extends Construct {
  public readonly secret: Secret;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.secret = new Secret(this, 'Secret', {
      description: 'callsheet: Voice Agent API key (apiKey) and webhook signing secret (webhookSecret)',
      secretObjectValue: {},
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The API key and webhook secret are issued in the vendor dashboard; rotating them is a vendor-side step that no rotation Lambda can perform.',
    });
  }

  /** Gives a function the secret's ARN in VOICE_API_SECRET_ARN and read access to it. */
  bindTo(fn: LambdaFunction): void {
    fn.addEnvironment('VOICE_API_SECRET_ARN', this.secret.secretArn);
    this.grantRead(fn);
  }

  grantRead(grantee: IGrantable): void {
    this.secret.grantRead(grantee);
  }
}
