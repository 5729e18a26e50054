import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetExecutionHistoryCommand, type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { stateMachineOf } from '#commons/campaign-plan.ts';
import { TransientError } from './errors.ts';

/** What the lifecycle asks of its own workflow: continue a part in a fresh execution, and count what one used. */
export interface LifecycleWorkflow {
  /** Starts execution `name` on the state machine of `executionArn`; answers the new execution's ARN. */
  continueAs(executionArn: string, name: string, input: unknown): Promise<string>;
  /** The states an execution has entered so far (StateEntered events in its history). */
  transitions(executionArn: string): Promise<number>;
}

export class StepFunctionsWorkflow implements LifecycleWorkflow {
  constructor(private readonly sfn: SFNClient) {}

  async continueAs(executionArn: string, name: string, input: unknown): Promise<string> {
    const out = await this.sfn.send(
      new StartExecutionCommand({ stateMachineArn: stateMachineOf(executionArn), name, input: JSON.stringify(input) }),
    );
    return out.executionArn ?? '';
  }

  async transitions(executionArn: string): Promise<number> {
    let count = 0;
    let nextToken: string | undefined;
    do {
      const out = await this.sfn.send(new GetExecutionHistoryCommand({ executionArn, nextToken, maxResults: 1000 }));
      count += (out.events ?? []).filter((e) => e.type?.endsWith('StateEntered')).length;
      nextToken = out.nextToken;
    } while (nextToken);
    return count;
  }
}

/** Where the end of a part is announced (EventBridge; `callsheet` is the source). */
export interface CampaignEvents {
  publish(detailType: 'Campaign Completed' | 'Campaign Failed', detail: unknown): Promise<void>;
}

export class EventBridgeEvents implements CampaignEvents {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly busName: string,
  ) {}

  async publish(detailType: 'Campaign Completed' | 'Campaign Failed', detail: unknown): Promise<void> {
    const out = await this.client.send(
      new PutEventsCommand({
        Entries: [
          { EventBusName: this.busName, Source: 'callsheet', DetailType: detailType, Detail: JSON.stringify(detail) },
        ],
      }),
    );
    // PutEvents answers 200 even when it drops an entry: a dropped completion event is worth a retry.
    if ((out.FailedEntryCount ?? 0) > 0)
      throw new TransientError(`publishing the campaign event: ${out.Entries?.[0]?.ErrorMessage ?? 'entry failed'}`);
  }
}
