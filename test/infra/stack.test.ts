import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '#commons/tables.ts';
import { SETTINGS, type SettingSpec } from '#infra/settings.ts';
import { FUNCTION_IDS, functionEntry, functionOf, type Resource, resources, synth } from './template.ts';

type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

/** Every IAM statement of the stack with the logical id of its policy. */
function statements(t: Template): { policy: string; s: Statement }[] {
  return resources(t, 'AWS::IAM::Policy').flatMap(([id, r]) =>
    ((r.Properties.PolicyDocument as { Statement: Statement[] }).Statement ?? []).map((s) => ({ policy: id, s })),
  );
}
const list = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);
/** The logical ids of the singleton CDK adds for triggers (aws-cdk-lib/triggers) start so. */
const TRIGGER_PROVIDER = 'AWSCDKTriggerCustomResourceProvider';

const envOf = (r: Resource) =>
  ((r.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {}) as Record<
    string,
    unknown
  >;

let template: Template;
beforeAll(() => {
  template = synth();
}, 120_000);

describe('least privilege', () => {
  it('deletes S3 objects only under incoming/, and only intake does', () => {
    const deletes = statements(template).filter(({ s }) =>
      list(s.Action).some((a) => /^s3:(\*|Delete)/.test(a) || a === '*'),
    );
    expect(deletes.length).toBeGreaterThan(0);
    for (const { policy, s } of deletes) {
      expect(policy).toMatch(/^IntakeFunction/);
      expect(list(s.Action).sort()).toEqual(['s3:DeleteObject', 's3:DeleteObjectVersion']);
      const targets = list(s.Resource).map((r) => JSON.stringify(r));
      expect(targets).toHaveLength(1);
      expect(targets[0]).toMatch(/"\/incoming\/\*"/);
    }
  });

  it('gives intake exactly its prefixes: reads incoming/ and parts/, writes reports/, parts/, processed/, rejected/', () => {
    const intake = statements(template).filter(({ policy }) => /^IntakeFunction/.test(policy));
    const prefixesFor = (action: string) =>
      intake
        .filter(({ s }) => list(s.Action).includes(action))
        .flatMap(({ s }) => list(s.Resource).map((r) => /\/([a-z]+)\/\*"/.exec(JSON.stringify(r))?.[1]))
        .sort();
    // parts/: the launch record a retry reads (functions/intake/launch-record.ts).
    expect(prefixesFor('s3:GetObject')).toEqual(['incoming', 'parts', 'processed', 'rejected']);
    expect(prefixesFor('s3:PutObject')).toEqual(['parts', 'processed', 'rejected', 'reports']);
    expect(prefixesFor('s3:PutObject')).not.toContain('incoming');
    for (const { s } of intake) for (const a of list(s.Action)) expect(a).not.toMatch(/^s3:.*\*/);
  });

  it('lets contact sync use on its table exactly what its store sends: gets, puts, updates, batch gets and puts', () => {
    const [table] = resources(template, 'AWS::DynamoDB::GlobalTable').find(([id]) => id.startsWith('Datacontacts')) ?? [
      '',
    ];
    expect(table).not.toBe('');
    const actions = statements(template)
      .filter(({ policy, s }) => /^ContactsFunction/.test(policy) && JSON.stringify(s.Resource).includes(`"${table}"`))
      .flatMap(({ s }) => list(s.Action))
      .sort();
    // ContactStore's GetCommand, BatchGet (readMany, appliedEvents, notes), PutCommand, UpdateCommand and the
    // BatchWrite of markApplied; never a scan or a delete.
    expect(actions).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
  });

  it('lets no function role use AWSLambdaBasicExecutionRole; each writes its own log group', () => {
    // CDK's own singletons, run only while a deploy runs: the bucket notifications and the trigger's provider.
    const roles = resources(template, 'AWS::IAM::Role').filter(
      ([id]) => !id.startsWith('BucketNotificationsHandler') && !id.startsWith(TRIGGER_PROVIDER),
    );
    for (const [id, r] of roles) expect(r.Properties.ManagedPolicyArns, id).toBeUndefined();
    const logWrites = statements(template).filter(({ s }) => list(s.Action).includes('logs:PutLogEvents'));
    expect(logWrites.length).toBeGreaterThanOrEqual(Object.keys(FUNCTION_IDS).length);
    for (const { s } of logWrites) expect(JSON.stringify(s.Resource)).toMatch(/Logs[0-9A-F]{8}","Arn"/);
  });
});

describe('the reindex after every deploy', () => {
  const idOf = (folder: string) => functionEntry(template, folder)[0];
  const tableId = (name: string) => {
    const [id] = resources(template, 'AWS::DynamoDB::GlobalTable').find(([id]) => id.startsWith(`Data${name}`)) ?? [''];
    expect(id, name).not.toBe('');
    return id;
  };

  it('runs its function from a trigger once the tables and every function using them are deployed', () => {
    const triggers = resources(template, 'Custom::Trigger');
    expect(triggers).toHaveLength(1);
    const [[, trigger]] = triggers as [[string, Resource & { DependsOn?: string[] }]];
    const version = (trigger.Properties.HandlerArn as { Ref: string }).Ref;
    const [, published] = resources(template, 'AWS::Lambda::Version').find(([id]) => id === version) as [
      string,
      Resource,
    ];
    expect(published.Properties.FunctionName).toEqual({ Ref: idOf('reindex') });
    expect(trigger.Properties.InvocationType).toBe('RequestResponse');
    // The provider's wait outlasts the function's own timeout.
    const timeout = Number(functionOf(template, 'reindex').Properties.Timeout);
    expect(Number(trigger.Properties.Timeout)).toBeGreaterThan(timeout * 1000);
    const after = trigger.DependsOn ?? [];
    for (const table of ['suppression', 'outcomes']) expect(after).toContain(tableId(table));
    for (const folder of ['intake', 'lifecycle', 'outcomes', 'webhooks', 'contacts', 'guard', 'sweeper'])
      expect(after, folder).toContain(idOf(folder));
  });

  it('looks again every 15 minutes, and waits on an upgrade for the longest timeout of the writers', () => {
    const rules = resources(template, 'AWS::Events::Rule').map(([, r]) => r.Properties);
    const schedule = rules.filter((r) => JSON.stringify(r.Targets ?? []).includes(idOf('reindex')));
    expect(schedule).toHaveLength(1);
    expect(schedule[0]?.ScheduleExpression).toBe('rate(15 minutes)');
    // Intake's 5 minutes: longer than the lifecycle step's and the outcome processor's.
    expect(envOf(functionOf(template, 'reindex')).REINDEX_DRAIN_SECONDS).toBe('300');
  });

  it('may read and write only the two tables it folds, and list the lifecycle executions', () => {
    const own = statements(template).filter(({ policy }) => policy.startsWith('ReindexFunction'));
    const on = (id: string) => own.filter(({ s }) => JSON.stringify(s.Resource).includes(`"${id}"`));
    const actions = (id: string) =>
      on(id)
        .flatMap(({ s }) => list(s.Action))
        .sort();
    expect(actions(tableId('suppression'))).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Scan',
    ]);
    expect(actions(tableId('outcomes'))).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Scan']);
    const machine = resources(template, 'AWS::StepFunctions::StateMachine')[0]?.[0] as string;
    expect(own.filter(({ s }) => list(s.Action).some((a) => a.startsWith('states:')))).toEqual([
      {
        policy: expect.any(String),
        s: expect.objectContaining({ Action: 'states:ListExecutions', Resource: { Ref: machine } }),
      },
    ]);
    // Nothing else: its own log group, those tables, that one machine.
    const logs = own.filter(({ s }) => list(s.Action).every((a) => a.startsWith('logs:')));
    expect(own.length).toBe(logs.length + on(tableId('suppression')).length + on(tableId('outcomes')).length + 1);
    for (const { s } of logs) expect(JSON.stringify(s.Resource)).toMatch(/ReindexFunctionLogs[0-9A-F]{8}","Arn"/);
  });

  it('lets the trigger’s provider invoke only the reindex function', () => {
    const [[, role]] = resources(template, 'AWS::IAM::Role').filter(([id]) => id.startsWith(TRIGGER_PROVIDER)) as [
      [string, Resource],
    ];
    const inline = (role.Properties.Policies as { PolicyDocument: { Statement: Statement[] } }[]).flatMap(
      (p) => p.PolicyDocument.Statement,
    );
    expect(inline).toEqual([
      {
        Effect: 'Allow',
        Action: ['lambda:InvokeFunction'],
        Resource: [{ 'Fn::Join': ['', [{ 'Fn::GetAtt': [idOf('reindex'), 'Arn'] }, ':*']] }],
      },
    ]);
  });
});

describe('secrets', () => {
  it('keeps the Voice API secret out of the template: no resource, no value, only its name', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    const text = JSON.stringify(template.toJSON());
    expect(text).not.toMatch(/SecretString|GenerateSecretString|SecretObjectValue/);
    for (const folder of ['intake', 'lifecycle', 'guard', 'sweeper', 'webhooks', 'outcomes', 'contacts'])
      expect(envOf(functionOf(template, folder)).VOICE_API_SECRET_ARN).toBe('callsheet/voice-api');
    const reads = statements(template).filter(({ s }) => list(s.Action).includes('secretsmanager:GetSecretValue'));
    expect(reads.length).toBeGreaterThan(0);
    for (const { s } of reads) expect(JSON.stringify(s.Resource)).toContain(':secret:callsheet/voice-api-??????');
  });
});

describe('concurrency', () => {
  it('caps intake (reserved and queue maximum alike) and lifecycle steps from the API budget', () => {
    expect(functionOf(template, 'intake').Properties.ReservedConcurrentExecutions).toBe(2);
    expect(functionOf(template, 'lifecycle').Properties.ReservedConcurrentExecutions).toBe(5);
    const mappings = resources(template, 'AWS::Lambda::EventSourceMapping');
    expect(mappings.length).toBeGreaterThan(0);
    for (const [id, m] of mappings) expect(m.Properties.ScalingConfig, id).toMatchObject({ MaximumConcurrency: 2 });
  });

  it('keeps every function within Lambda’s 15 minutes at the longest Voice API timeout the settings take', () => {
    const longest = synth({ 'callsheet:VOICE_API_TIMEOUT_SECONDS': 42 });
    const timeouts = resources(longest, 'AWS::Lambda::Function').map(([id, r]) => [id, Number(r.Properties.Timeout)]);
    expect(timeouts.length).toBeGreaterThan(0);
    for (const [id, timeout] of timeouts) expect(timeout, String(id)).toBeLessThanOrEqual(900);
    expect(Number(functionOf(longest, 'lifecycle').Properties.Timeout)).toBeGreaterThan(800);
    expect(() => synth({ 'callsheet:VOICE_API_TIMEOUT_SECONDS': 43 })).toThrow(
      /VOICE_API_TIMEOUT_SECONDS=43: from 1 to 42/,
    );
  }, 120_000);

  it('scales the caps with API_BUDGET_PER_MINUTE and takes explicit ones', () => {
    const bigger = synth({ 'callsheet:API_BUDGET_PER_MINUTE': '500' });
    expect(functionOf(bigger, 'intake').Properties.ReservedConcurrentExecutions).toBe(10);
    expect(functionOf(bigger, 'lifecycle').Properties.ReservedConcurrentExecutions).toBe(25);
    const explicit = synth({ 'callsheet:INTAKE_CONCURRENCY': 3, 'callsheet:LIFECYCLE_CONCURRENCY': 4 });
    expect(functionOf(explicit, 'intake').Properties.ReservedConcurrentExecutions).toBe(3);
    expect(functionOf(explicit, 'lifecycle').Properties.ReservedConcurrentExecutions).toBe(4);
    const [, intakeQueue] = resources(explicit, 'AWS::Lambda::EventSourceMapping').find(([id]) =>
      id.startsWith('IntakeFunction'),
    ) as [string, Resource];
    expect(intakeQueue.Properties.ScalingConfig).toEqual({ MaximumConcurrency: 3 });
  }, 120_000);
});

describe('alarms, dashboard, events, outputs', () => {
  it('sends every alarm to the one encrypted topic', () => {
    const [[topicId, topic]] = resources(template, 'AWS::SNS::Topic') as [[string, Resource]];
    expect(topic.Properties.KmsMasterKeyId).toBeDefined();
    const alarms = resources(template, 'AWS::CloudWatch::Alarm');
    const names = alarms.map(([, a]) => String(a.Properties.AlarmName).replace(/^Callsheet-/, '')).sort();
    expect(names).toEqual(
      expect.arrayContaining([
        'LifecycleExecutionsFailed',
        'GuardActions',
        'SweeperActions',
        'SweeperCallsUnread',
        'IntakeDeadLetters',
        'OutcomesDeadLetters',
        'IntakeErrors',
        'LifecycleErrors',
        'GuardErrors',
        'SweeperErrors',
        'ApiClientErrorRate',
        'ApiServerErrorRate',
        'ApiThrottleRate',
      ]),
    );
    for (const [id, a] of alarms.filter(([, a]) => String(a.Properties.AlarmName).startsWith('Callsheet-')))
      expect(a.Properties.AlarmActions, id).toEqual([{ Ref: topicId }]);
  });

  it('counts guard actions over every outcome the guard emits, in its namespace', () => {
    const [, guard] = resources(template, 'AWS::CloudWatch::Alarm').find(
      ([, a]) => a.Properties.AlarmName === 'Callsheet-GuardActions',
    ) as [string, Resource];
    const metrics = (guard.Properties.Metrics as { MetricStat?: { Metric: Record<string, unknown> } }[])
      .filter((m) => m.MetricStat)
      .map((m) => m.MetricStat?.Metric);
    expect(metrics.map((m) => m?.MetricName)).toEqual(Array(metrics.length).fill('GuardActions'));
    expect(metrics.map((m) => (m?.Dimensions as { Value: string }[] | undefined)?.[0]?.Value)).toEqual(
      expect.arrayContaining(['paused', 'braked', 'unconfirmed']),
    );
  });

  it('routes Campaign Completed and Campaign Failed from callsheet’s bus to the topic', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: Match.stringLikeRegexp('^LifecycleEvents') },
      EventPattern: { source: ['callsheet'], 'detail-type': ['Campaign Completed', 'Campaign Failed'] },
      Targets: [Match.objectLike({ Arn: { Ref: Match.stringLikeRegexp('^MonitoringAlarms') } })],
    });
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  it('outputs the bucket, the upload prefix, the dashboard, the topic, the secret name and the webhook URL', () => {
    const outputs = Object.keys(template.toJSON().Outputs ?? {});
    for (const name of [
      'UploadBucketName',
      'UploadPrefix',
      'DashboardUrl',
      'AlarmTopicArn',
      'VoiceApiSecretName',
      'CampaignsTableName',
      'UploadsTableName',
      'WebhookUrl',
    ])
      expect(outputs).toContain(name);
  });

  it('outputs what the runbooks name: each dead-letter queue and the guard function', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    for (const queue of ['IntakeDeadLetters', 'OutcomesDeadLetters', 'ContactsDeadLetters', 'GuardFailures']) {
      expect(JSON.stringify(outputs[`${queue}QueueUrl`]?.Value), queue).toMatch(/"Ref":/);
      expect(JSON.stringify(outputs[`${queue}QueueArn`]?.Value), queue).toMatch(/"Arn"/);
    }
    expect(JSON.stringify(outputs.GuardFunctionName?.Value)).toMatch(/GuardFunction/);
  });
});

describe('the campaigns table', () => {
  it('indexes parts by status and by end day with what the sweeper reads, and only its readers may query them', () => {
    const [id, table] = resources(template, 'AWS::DynamoDB::GlobalTable').find(([id]) =>
      id.startsWith('Datacampaigns'),
    ) ?? [''];
    expect(id).not.toBe('');
    expect((table as Resource).Properties.GlobalSecondaryIndexes).toEqual(
      TABLES.campaigns.indexes.map((index) => ({
        IndexName: index.name,
        KeySchema: [{ AttributeName: index.partitionKey, KeyType: 'HASH' }],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.include] },
      })),
    );
    expect(TABLES.campaigns.indexes.map((i) => i.name)).toEqual(['by-status', 'by-end-day']);
    // The sweeper's role may query it; every grant of an index is of this table's.
    const indexGrants = statements(template).filter(({ s }) => JSON.stringify(s.Resource).includes('/index/*'));
    expect(
      indexGrants.some(
        ({ policy, s }) => policy.startsWith('GuardSweeper') && list(s.Action).includes('dynamodb:Query'),
      ),
    ).toBe(true);
    for (const { s } of indexGrants) expect(JSON.stringify(s.Resource)).toContain(`"${id}","Arn"`);
  });
});

describe('retention', () => {
  it('expires what the tables mark with a TTL attribute', () => {
    const withTtl = Object.values(TABLES).filter((t) => 'ttl' in t);
    expect(withTtl.length).toBeGreaterThan(0);
    const tables = resources(template, 'AWS::DynamoDB::GlobalTable').map(([, r]) => r.Properties);
    for (const t of Object.values(TABLES)) {
      const table = tables.find(
        (p) =>
          (p.KeySchema as { AttributeName: string }[])[0]?.AttributeName === t.partitionKey &&
          JSON.stringify(p.TimeToLiveSpecification ?? null).includes('ttl' in t ? String(t.ttl) : 'null'),
      );
      expect(table, t.env).toBeDefined();
    }
    for (const t of withTtl)
      template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
        TimeToLiveSpecification: { AttributeName: t.ttl, Enabled: true },
      });
  });

  it('expires uploads, parts and reports by their settings, and old versions in incoming/', () => {
    const rulesOf = (t: Template) => {
      const [, bucket] = resources(t, 'AWS::S3::Bucket').find(
        ([, b]) => (b.Properties.VersioningConfiguration as { Status?: string } | undefined)?.Status === 'Enabled',
      ) as [string, Resource];
      return (bucket.Properties.LifecycleConfiguration as { Rules: Record<string, unknown>[] }).Rules;
    };
    const expiry = (rules: Record<string, unknown>[], prefix: string) =>
      rules.find((r) => r.Prefix === prefix)?.ExpirationInDays;
    const rules = rulesOf(template);
    expect(expiry(rules, 'processed/')).toBe(90);
    expect(expiry(rules, 'rejected/')).toBe(90);
    expect(expiry(rules, 'parts/')).toBe(90);
    expect(expiry(rules, 'contacts/')).toBe(90);
    expect(expiry(rules, 'reports/')).toBe(365);
    expect(rules.find((r) => r.Prefix === 'incoming/')).toMatchObject({
      NoncurrentVersionExpiration: { NoncurrentDays: 7 },
      ExpiredObjectDeleteMarker: true,
    });
    expect(expiry(rules, 'incoming/')).toBeUndefined();
    const shorter = rulesOf(synth({ 'callsheet:UPLOAD_RETENTION_DAYS': 45, 'callsheet:REPORT_RETENTION_DAYS': 60 }));
    expect(expiry(shorter, 'parts/')).toBe(45);
    expect(expiry(shorter, 'reports/')).toBe(60);
  }, 120_000);
});

describe('settings reach the functions that read them', () => {
  /** A valid value for every function setting, so each one is set. */
  const VALUES: Record<string, unknown> = {
    VOICE_API_KEY_TTL_SECONDS: 120,
    VOICE_API_TIMEOUT_SECONDS: 12,
    API_BUDGET_PER_MINUTE: 100,
    API_BUDGET_PER_HOUR: 1000,
    API_BUDGET_LIFECYCLE_PER_MINUTE: 6,
    API_BUDGET_LIFECYCLE_PER_HOUR: 60,
    API_BUDGET_SAFETY_PER_MINUTE: 8,
    API_BUDGET_SAFETY_PER_HOUR: 150,
    API_BUDGET_MAX_WAIT_SECONDS: 20,
    DEFAULT_COUNTRY: 'GB',
    DEFAULT_RETRIES: 2,
    CALL_CAP_PER_DAY: 2,
    CALL_CAP_PER_WEEK: 5,
    LEGAL_HOURS: { GB: 'Mon-Fri 09:00-20:00' },
    INTAKE_LEASE_SECONDS: 400,
    CLOSING_MARGIN_MINUTES: 6,
    PAUSE_LEAD_SECONDS: 100,
    BRAKE_LEAD_SECONDS: 20,
    SECURE_RETRY_SECONDS: 30,
    HOLD_HORIZON_DAYS: 10,
    START_HORIZON_DAYS: 12,
    POLL_MIN_SECONDS: 40,
    POLL_MAX_SECONDS: 800,
    CONTINUE_AFTER_STEPS: 900,
    RECONCILE_MINUTES: 25,
    SWEEP_INTERVAL_MINUTES: 4,
    OVERDUE_GRACE_MINUTES: 9,
    CONTACTS_MAX_RECEIVES: 4,
    WEBHOOK_SECRET_TTL_SECONDS: 200,
    WEBHOOK_SECRET_MIN_REFRESH_SECONDS: 5,
    WEBHOOK_MAX_BODY_BYTES: 32768,
    POWERTOOLS_LOG_LEVEL: 'DEBUG',
  };

  it('forwards each function setting to exactly the deployed functions whose folder reads it', () => {
    const functionSettings = Object.entries(SETTINGS as Record<string, SettingSpec>).filter(
      ([name, spec]) => spec.readBy.length > 0 && name !== 'VOICE_API_URL',
    );
    expect(Object.keys(VALUES).sort()).toEqual(functionSettings.map(([n]) => n).sort());
    const t = synth(Object.fromEntries(Object.entries(VALUES).map(([k, v]) => [`callsheet:${k}`, v])));
    for (const folder of Object.keys(FUNCTION_IDS)) {
      const env = envOf(functionOf(t, folder));
      for (const [name, spec] of functionSettings) {
        const expected = typeof VALUES[name] === 'object' ? JSON.stringify(VALUES[name]) : String(VALUES[name]);
        if (spec.readBy.includes(folder as never)) expect(env[name], `${name} → ${folder}`).toBe(expected);
        else expect(env[name], `${name} ↛ ${folder}`).toBeUndefined();
      }
    }
  }, 120_000);

  it('traces with X-Ray only when TRACING is on, and otherwise tells the functions not to load it', () => {
    // Off by default: the template as synthesized for everyone.
    for (const folder of Object.keys(FUNCTION_IDS)) {
      expect(functionOf(template, folder).Properties.TracingConfig, folder).toBeUndefined();
      expect(envOf(functionOf(template, folder)).POWERTOOLS_TRACE_ENABLED, folder).toBe('false');
    }
    const machines = resources(template, 'AWS::StepFunctions::StateMachine');
    expect(
      machines.map(
        ([, m]) => (m.Properties.TracingConfiguration as { Enabled?: boolean } | undefined)?.Enabled ?? false,
      ),
    ).toEqual([false]);
    const on = synth({ 'callsheet:TRACING': true });
    for (const folder of Object.keys(FUNCTION_IDS)) {
      expect(functionOf(on, folder).Properties.TracingConfig, folder).toEqual({ Mode: 'Active' });
      expect(envOf(functionOf(on, folder)).POWERTOOLS_TRACE_ENABLED, folder).toBeUndefined();
    }
    const traced = resources(on, 'AWS::StepFunctions::StateMachine');
    expect(traced.map(([, m]) => (m.Properties.TracingConfiguration as { Enabled?: boolean }).Enabled)).toEqual([true]);
  }, 120_000);

  it('bundles no source maps unless SOURCE_MAPS asks', () => {
    for (const folder of Object.keys(FUNCTION_IDS))
      expect(envOf(functionOf(template, folder)).NODE_OPTIONS).toBeUndefined();
    const debug = synth({ 'callsheet:SOURCE_MAPS': true });
    expect(envOf(functionOf(debug, 'intake')).NODE_OPTIONS).toBe('--enable-source-maps');
  }, 120_000);
});

describe('the first rule, deployed', () => {
  it('names a published version of the step function in the document, so a running execution keeps its code', () => {
    const [, machine] = resources(template, 'AWS::StepFunctions::StateMachine')[0] as [string, Resource];
    const subs = machine.Properties.DefinitionSubstitutions as Record<string, { Ref?: string }>;
    const ref = subs.LifecycleFunctionArn?.Ref ?? '';
    const versions = resources(template, 'AWS::Lambda::Version').map(([id]) => id);
    expect(versions).toContain(ref);
    // The execution timeout is in the document (its expiry is what the guard acts on).
    const definition = JSON.stringify(machine.Properties.DefinitionString);
    expect(definition).toMatch(/TimeoutSeconds/);
    expect(definition).toMatch(/SecureCampaign/);
  });

  it('wakes the guard on failed, timed-out and aborted lifecycle executions, and the sweeper every 5 minutes', () => {
    const rules = resources(template, 'AWS::Events::Rule').map(([, r]) => r.Properties);
    const status = rules.find((r) => JSON.stringify(r.EventPattern ?? {}).includes('Execution Status Change'));
    expect(status?.EventPattern).toMatchObject({
      source: ['aws.states'],
      detail: { status: ['FAILED', 'TIMED_OUT', 'ABORTED'] },
    });
    expect(JSON.stringify(status?.Targets)).toMatch(/GuardFunction/);
    const sweep = rules.find((r) => r.ScheduleExpression === 'rate(5 minutes)');
    expect(JSON.stringify(sweep?.Targets)).toMatch(/GuardSweeperFunction/);
  });

  it('gives the lifecycle, guard and sweeper their shares of the API budget, and intake the contact queue', () => {
    for (const folder of ['lifecycle', 'guard', 'sweeper']) {
      expect(envOf(functionOf(template, folder)), folder).toHaveProperty(TABLES.apiBudget.env);
      // Taking a token is a conditional update of the budget's item: granted to the function's own role.
      const role = (functionOf(template, folder).Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
      const budget = resources(template, 'AWS::IAM::Policy')
        .filter(([, r]) => JSON.stringify(r.Properties.Roles).includes(`"${role}"`))
        .flatMap(([, r]) => (r.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
        .filter(
          (s) => JSON.stringify(s.Resource).includes('DataapiBudget') && list(s.Action).includes('dynamodb:UpdateItem'),
        );
      expect(budget, folder).toHaveLength(1);
    }
    expect(envOf(functionOf(template, 'intake'))).toHaveProperty('CONTACTS_QUEUE_URL');
    const sends = statements(template).filter(
      ({ policy, s }) => policy.startsWith('IntakeFunction') && list(s.Action).includes('sqs:SendMessage'),
    );
    expect(sends).toHaveLength(1);
  });
});
