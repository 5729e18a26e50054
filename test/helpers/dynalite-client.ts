import { documentClient } from '#commons/aws/dynamo-client.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/stack/local-aws.ts';

/** A document client on a dynalite started by a test. */
export const dynaliteClient = (endpoint: string) =>
  documentClient({ region: LOCAL_REGION, endpoints: { dynamodb: endpoint }, credentials: LOCAL_CREDENTIALS });
