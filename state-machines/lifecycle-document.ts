import { readFileSync } from 'node:fs';

/** The one lifecycle document: CDK deploys it and the local runner executes it, both through this function. */
export const LIFECYCLE_DOCUMENT = new URL('./campaign-lifecycle.asl.json', import.meta.url);

// biome-ignore lint/suspicious/noTemplateCurlyInString: the document's literal DefinitionSubstitutions placeholder
export const LIFECYCLE_FUNCTION_PLACEHOLDER = '${LifecycleFunctionArn}';

/** A month: the longest a single execution may run before it counts as timed out (continuations start afresh). */
export const DEFAULT_EXECUTION_TIMEOUT_SECONDS = 30 * 86_400;

export interface LifecycleDocumentOptions {
  /**
   * The function (version) ARN put in place of `${LifecycleFunctionArn}`; omit to keep the placeholder for CDK's
   * DefinitionSubstitutions.
   */
  functionArn?: string;
  /** The execution's `TimeoutSeconds`; its expiry is an execution status the guard acts on. */
  timeoutSeconds: number;
}

/** The document as text, with the execution timeout from configuration and, if given, the function's ARN. */
export function renderLifecycleDocument(options: LifecycleDocumentOptions): string {
  const doc = JSON.parse(readFileSync(LIFECYCLE_DOCUMENT, 'utf8')) as Record<string, unknown>;
  if (!Number.isInteger(options.timeoutSeconds) || options.timeoutSeconds < 60)
    throw new Error(
      `the lifecycle's execution timeout must be a whole number of seconds ≥ 60, not ${options.timeoutSeconds}`,
    );
  const text = JSON.stringify({ ...doc, TimeoutSeconds: options.timeoutSeconds }, null, 2);
  return options.functionArn ? text.replaceAll(LIFECYCLE_FUNCTION_PLACEHOLDER, options.functionArn) : text;
}
