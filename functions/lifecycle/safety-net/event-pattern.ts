/** The EventBridge rule that wakes the guard: CDK deploys it and the local stack matches with it. */
export const GUARDED_STATUSES = ['FAILED', 'TIMED_OUT', 'ABORTED'] as const;

export const EXECUTION_STATUS_CHANGE = 'Step Functions Execution Status Change';

export function guardEventPattern(stateMachineArn: string) {
  return {
    source: ['aws.states'],
    detailType: [EXECUTION_STATUS_CHANGE],
    detail: { status: [...GUARDED_STATUSES], stateMachineArn: [stateMachineArn] },
  };
}

export interface ExecutionStatusEvent {
  source: string;
  'detail-type': string;
  detail: { executionArn: string; stateMachineArn: string; name: string; status: string };
}

/** Whether the rule above matches an event (the local stack has no EventBridge rule engine). */
export function matchesGuardPattern(event: ExecutionStatusEvent, stateMachineArn: string): boolean {
  const p = guardEventPattern(stateMachineArn);
  return (
    p.source.includes(event.source) &&
    p.detailType.includes(event['detail-type']) &&
    p.detail.status.includes(event.detail.status as (typeof GUARDED_STATUSES)[number]) &&
    p.detail.stateMachineArn.includes(event.detail.stateMachineArn)
  );
}
