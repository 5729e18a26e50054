import { lookUpAgent } from '#commons/agent-lookup.ts';
import type { ObjectHead, ObjectStore, ObjectVersion } from '#commons/aws/object-store.ts';
import type { CapLookup, FrequencyCapStore } from '#commons/frequency-cap-store.ts';
import type { LifecycleStarter } from '#commons/lifecycle-starter.ts';
import { reportKeys } from '#commons/report-keys.ts';
import { DEFAULT_LIMITS, fileTooLarge } from '#commons/spreadsheet/limits.ts';
import type { SuppressionList, SuppressionLookup } from '#commons/suppression-list.ts';
import { agentFolder, INCOMING, type UploadRef, uploadId } from '#commons/upload-ref.ts';
import type { AgentsApi } from '#commons/voice-api/agents.ts';
import type { Agent } from '#commons/voice-api/types.ts';
import { capUpload } from './caps.ts';
import type { IntakeDefaults } from './config.ts';
import type { Contact } from './contacts.ts';
import { readLaunch, writeLaunch } from './launch-record.ts';
import { type ApiPlan, upFrontNotes } from './plan-load-notes.ts';
import { planParts } from './plan-parts.ts';
import { type IntakeReport, originalDestination, XLSX_TYPE } from './report.ts';
import { DEFAULT_START_HORIZON_DAYS } from './settings.ts';
import { S3Upload } from './upload-source.ts';
import type { UploadOutcome, UploadStore } from './upload-store.ts';
import { type ValidationOutcome, validateUpload } from './validate-upload.ts';
import { writeUploadFiles } from './writers.ts';

export interface IntakeDeps {
  objects: ObjectStore;
  uploads: UploadStore;
  suppression: Pick<SuppressionList, 'lookup'>;
  agents: AgentsApi;
  starter: LifecycleStarter;
  defaults: IntakeDefaults;
  /** How long one attempt may hold an upload before another delivery may take it over. */
  leaseMs: number;
  /** The API plan the parts share: intake notes when they need more of it than it has. */
  plan: ApiPlan;
  now: () => Date;
  /** The contact store learns everyone a launched sheet calls (functions/intake/campaign-contacts.ts). */
  contacts?: { upsertAccepted(uploadId: string, contacts: Contact[]): Promise<void> };
  /** Calls per number per day and week across all campaigns (OUTCOMES_TABLE); absent: no caps. */
  caps?: Pick<FrequencyCapStore, 'lookup'>;
}

export type IntakeResult =
  | { status: 'ignored'; key: string }
  | { status: 'duplicate_event'; uploadId: string; outcome: UploadOutcome | undefined }
  | ({ status: UploadOutcome['status']; uploadId: string } & UploadOutcome);

/** Another delivery of the same upload is being processed right now; try again after its lease. */
export class UploadBusyError extends Error {
  constructor(readonly uploadId: string) {
    super(`upload ${uploadId} is being processed by another delivery; retry later`);
    this.name = 'UploadBusyError';
  }
}

interface Decision {
  status: UploadOutcome['status'];
  error: { code: string; message: string } | null;
  agent: Agent | null;
  validation: ValidationOutcome | null;
  earlier: { uploadId: string; key: string; at: string } | null;
}

/** Where the upload is now: where it was uploaded, or its copy in processed/ or rejected/ after a crash mid-move. */
interface FoundUpload {
  key: string;
  version: ObjectVersion;
  head: ObjectHead;
  moved: boolean;
}

/** CopyObject copies at most 5 GiB: a larger original is left where it was uploaded. */
const MAX_COPY_BYTES = 5 * 1024 ** 3;

const rejected = (code: string, message: string, validation: ValidationOutcome | null = null): Decision => ({
  status: 'rejected',
  error: { code, message },
  agent: null,
  validation,
  earlier: null,
});

/**
 * Turns one uploaded sheet into launched campaign parts: validates it, writes the report and the annotated copy,
 * writes and starts each part exactly once, then moves the original to processed/ or rejected/ (copy, then
 * delete of exactly that version). Safe to run again for the same upload at any point.
 */
export class IntakeService {
  constructor(private readonly deps: IntakeDeps) {}

  async process(ref: UploadRef): Promise<IntakeResult> {
    if (!ref.key.startsWith(INCOMING) || ref.key.endsWith('/')) return { status: 'ignored', key: ref.key };
    const id = uploadId(ref);
    const { uploads } = this.deps;
    const claim = await uploads.claim(id, ref, this.deps.now().getTime(), this.deps.leaseMs);
    if (claim.kind === 'done') return { status: 'duplicate_event', uploadId: id, outcome: claim.record.outcome };
    if (claim.kind === 'busy') throw new UploadBusyError(id);
    try {
      const outcome = await this.run(id, ref);
      await uploads.finish(id, outcome, this.deps.now());
      return { uploadId: id, ...outcome };
    } catch (err) {
      await uploads.release(id).catch(() => undefined);
      throw err;
    }
  }

  private async run(id: string, event: UploadRef): Promise<UploadOutcome> {
    const { objects } = this.deps;
    const keys = reportKeys(id);
    const found = await this.findOriginal(event);
    if (!found) {
      const decision = rejected(
        'upload_missing',
        'The uploaded file was deleted or replaced before intake could read it. Upload it again.',
      );
      await this.writeReport(id, event, decision, [], null, null);
      return { status: 'rejected', reportKey: keys.json, movedTo: null, parts: [], error: decision.error };
    }
    // The size is known before a byte is read: from the event, else from HeadObject. A file over the limit is refused
    // unread: read, it could exhaust the function's memory, and a function that dies writes no report.
    const ref = { ...event, size: event.size > 0 ? event.size : found.head.size };
    const decision =
      ref.size > DEFAULT_LIMITS.maxFileBytes
        ? rejected('too_large', fileTooLarge(ref.size, DEFAULT_LIMITS).message)
        : await this.checked(id, ref, found);
    const stays = ref.size > MAX_COPY_BYTES;
    // An earlier attempt fixed its parts and may have started some: exactly those are started, whatever this read says.
    const earlier = await readLaunch(objects, ref.bucket, id);
    const status = earlier ? 'launched' : decision.status;
    const destination =
      earlier?.destination ??
      (stays ? ref.key : originalDestination(ref.key, id, status === 'launched' ? 'processed' : 'rejected'));
    const parts =
      earlier?.parts ??
      (decision.status === 'launched' && decision.validation && decision.agent
        ? planParts(
            id,
            ref,
            decision.validation,
            decision.agent,
            this.deps.defaults,
            this.deps.defaults.legalHours,
            this.deps.now().getTime(),
          )
        : []);

    const v = decision.validation;
    if (!earlier) {
      const annotated = v?.scanned ? keys.annotated : null;
      if (v) {
        const keyOf = new Map(parts.map((p) => [p.plan.part.index, p.plan.part.key]));
        await writeUploadFiles(
          v,
          v.parts.filter((part) => keyOf.has(part.index)),
          (part, xlsx) => objects.put(ref.bucket, keyOf.get(part.index) as string, xlsx, XLSX_TYPE),
          annotated ? (xlsx) => objects.put(ref.bucket, annotated, xlsx, XLSX_TYPE) : null,
        );
      }
      await this.writeReport(id, ref, decision, parts, destination, annotated);
      // Before the first start: from here on a retry starts these parts and rewrites none of their files.
      if (parts.length > 0) await writeLaunch(objects, ref.bucket, id, { parts, destination });
    }
    for (const p of parts) await this.deps.starter.start(p.executionName, p.plan);
    // Events with ids from the upload and the number: a redelivery of this upload changes no contact twice.
    if (this.deps.contacts && parts.length > 0)
      await this.deps.contacts.upsertAccepted(id, decision.validation?.parts.flatMap((p) => p.contacts) ?? []);
    if (!found.moved && !stays) await this.moveOriginal(ref, destination);

    return {
      status,
      reportKey: keys.json,
      movedTo: destination,
      parts: parts.map((p) => ({
        index: p.plan.part.index,
        executionName: p.executionName,
        rows: p.plan.part.rows,
        timeZone: p.plan.part.timeZone,
      })),
      error: earlier ? null : decision.error,
    };
  }

  /**
   * The upload as sent; after a crash between the move and the finish, its moved copy (same ETag). Looked at, not
   * read: its size decides whether it is read at all.
   */
  private async findOriginal(ref: UploadRef): Promise<FoundUpload | null> {
    const { objects } = this.deps;
    const version = { versionId: ref.versionId, eTag: ref.eTag };
    const original = await objects.head(ref.bucket, ref.key, version);
    if (original) return { key: ref.key, version, head: original, moved: false };
    const id = uploadId(ref);
    for (const where of ['processed', 'rejected'] as const) {
      const key = originalDestination(ref.key, id, where);
      const copy = await objects.head(ref.bucket, key, { eTag: ref.eTag });
      if (copy) return { key, version: { eTag: ref.eTag }, head: copy, moved: true };
    }
    return null;
  }

  /**
   * The upload read and decided, then its caps counted. The do-not-call list and the caps are read while the rows
   * are (each number's shard as soon as the number is), so neither waits for the whole file before its first request.
   */
  private async checked(id: string, ref: UploadRef, found: FoundUpload): Promise<Decision> {
    const dnc = this.deps.suppression.lookup();
    const caps = this.deps.caps?.lookup();
    const lookAhead = (phone: string) => {
      dnc.want(phone);
      caps?.want(phone);
    };
    return this.capped(id, await this.decide(id, ref, found, dnc, lookAhead), caps);
  }

  private async decide(
    id: string,
    ref: UploadRef,
    original: FoundUpload,
    dnc: SuppressionLookup,
    lookAhead: (phone: string) => void,
  ): Promise<Decision> {
    const { agent: agentRef } = agentFolder(ref.key);
    if (!agentRef)
      return rejected(
        'no_agent',
        'Put the file in a folder named after the agent that should call: incoming/<agent id or name>/<file>.',
      );
    const fileName = ref.key.split('/').pop() ?? ref.key;
    const upload = new S3Upload(this.deps.objects, ref.bucket, original.key, original.version, original.head.size);
    const validation = await validateUpload(upload, fileName, {
      defaultCountry: this.deps.defaults.country,
      metadata: original.head.metadata,
      legalHours: this.deps.defaults.legalHours,
      suppressed: (phones) => dnc.matching(phones),
      lookAhead,
      startHorizon: {
        now: this.deps.now().getTime(),
        days: this.deps.defaults.startHorizonDays ?? DEFAULT_START_HORIZON_DAYS,
      },
    });
    const { report } = validation;
    if (!report.ok && report.error) return rejected(report.error.code, report.error.message, validation);

    const found = await lookUpAgent(this.deps.agents, agentRef);
    if (!found.ok) return rejected(found.code, found.message, validation);

    if (!validation.settings.repeatUpload) {
      const earlier = await this.deps.uploads.rememberContent(await upload.sha256(), id, ref.key, this.deps.now());
      if (earlier)
        return {
          status: 'repeated',
          error: {
            code: 'repeated_upload',
            message: `The same file was already uploaded as ${earlier.key} on ${earlier.at} (upload ${earlier.uploadId}); nobody was called again. To call these contacts again on purpose, add the setting "repeat upload: yes" (Settings sheet or x-amz-meta-repeat-upload) and upload it again.`,
          },
          agent: found.agent,
          validation,
          earlier,
        };
    }
    return { status: 'launched', error: null, agent: found.agent, validation, earlier: null };
  }

  /** Frequency caps (functions/intake/caps.ts), counted only for an upload about to launch. */
  private async capped(id: string, decision: Decision, caps: CapLookup | undefined): Promise<Decision> {
    const { defaults } = this.deps;
    if (!caps || decision.status !== 'launched' || !decision.validation) return decision;
    const calls = 1 + (decision.validation.settings.retries ?? defaults.retries);
    const validation = await capUpload(decision.validation, caps, id, calls, this.deps.now());
    if (validation.report.ok || !validation.report.error) return { ...decision, validation };
    return rejected(validation.report.error.code, validation.report.error.message, validation);
  }

  private async writeReport(
    id: string,
    ref: UploadRef,
    decision: Decision,
    parts: ReturnType<typeof planParts>,
    destination: string | null,
    annotated: string | null,
  ): Promise<void> {
    const { objects } = this.deps;
    const keys = reportKeys(id);
    const v = decision.validation;
    const report: IntakeReport = {
      uploadId: id,
      status: decision.status,
      error: decision.error,
      upload: { bucket: ref.bucket, key: ref.key, versionId: ref.versionId, eTag: ref.eTag, size: ref.size },
      original: destination ? `s3://${ref.bucket}/${destination}` : null,
      agent: decision.agent ? { id: decision.agent.id, name: decision.agent.name } : null,
      settings: v?.settings ?? {},
      format: v?.report.format ?? null,
      rows: v?.report.rows ?? { total: 0, valid: 0, rejected: 0 },
      rejected: v?.report.rejected ?? [],
      notes: [
        ...(v?.report.notes ?? []),
        ...(v && parts.length > 0
          ? upFrontNotes(v, this.deps.defaults.legalHours, this.deps.plan, this.deps.now().getTime())
          : []),
      ],
      parts: parts.map((p) => ({
        index: p.plan.part.index,
        rows: p.plan.part.rows,
        zones: p.plan.part.zones,
        timeZone: p.plan.part.timeZone,
        zoneDecidedBy: p.zoneDecidedBy,
        window: p.hours.window,
        clippedToLegalHours: p.hours.clippedToLegalHours,
        regions: p.plan.part.regions ?? [],
        rules: p.hours.rules,
        campaignName: p.plan.campaign.name,
        file: `s3://${ref.bucket}/${p.plan.part.key}`,
        executionName: p.executionName,
      })),
      annotated: annotated ? `s3://${ref.bucket}/${annotated}` : null,
      earlierUpload: decision.earlier,
    };
    await objects.put(ref.bucket, keys.json, `${JSON.stringify(report, null, 2)}\n`, 'application/json');
  }

  private async moveOriginal(ref: UploadRef, destination: string): Promise<void> {
    const { objects } = this.deps;
    const version = { versionId: ref.versionId, eTag: ref.eTag };
    await objects.copy(ref.bucket, ref.key, destination, version);
    await objects.deleteVersion(ref.bucket, ref.key, version);
  }
}
