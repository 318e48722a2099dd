/**
 * The optional LLM planner for Kubernetes targets: ask the project's model for a plan, check the
 * answer, and send the problems back until it passes or the tries run out.
 *
 * One try = one chat call + parseReply + the caller's `validate` (the deterministic planner's
 * manifest rules bound to the namespace and env: kinds, labels, probes, limits, schemas). A reply
 * that fails parsing or validation is shown back to the model with its problems. When every try
 * fails this throws; the caller sets the env `failed` and tells the user to use Re-plan to retry.
 *
 * Not idempotent in cost (each call is billed by the endpoint), but free of side effects: nothing is
 * stored or applied here, so a crash mid-loop just means the planner sweep asks again.
 */
import type { KubeObject } from '../../../../contracts/kubernetes.js';
import { manifestsYaml } from '../plan/manifests-yaml.js';
import { chatCompletion, LlmEndpointError, type LlmEndpoint } from './chat-client.js';
import { buildMessages, type LlmPlanInput, type PreviousTry } from './prompt.js';
import { parseReply, type ParsedReply } from './reply.js';
import { SealedValues } from './sealed-values.js';

export interface LlmPlannerDeps {
  readonly endpoint: LlmEndpoint;
  /** Problems with the manifests (each naming the document and path), [] when they may be applied. A throw is a bug and propagates. */
  readonly validate: (docs: readonly unknown[]) => string[];
  /** The chat call; tests and the lead's wiring may pass another. */
  readonly chat?: typeof chatCompletion;
  /** Tries in all (first one included). Default 3. */
  readonly maxTries?: number;
  /** Cancels the plan at once (no further tries). */
  readonly signal?: AbortSignal;
  /** Per chat call; the chat client's default otherwise. */
  readonly timeoutMs?: number;
}

export interface LlmPlan {
  readonly manifests: KubeObject[];
  readonly summary: string;
  /** The validated manifests as multi-document YAML: what the plan stores and the user reviews. */
  readonly artifact: string;
  /** Tries used, 1 … maxTries. */
  readonly tries: number;
}

export const DEFAULT_MAX_TRIES = 3;

export async function planWithLlm(input: LlmPlanInput, deps: LlmPlannerDeps): Promise<LlmPlan> {
  const chat = deps.chat ?? chatCompletion;
  const maxTries = deps.maxTries ?? DEFAULT_MAX_TRIES;
  if (!Number.isInteger(maxTries) || maxTries < 1) throw new RangeError(`maxTries must be a whole number ≥ 1, got ${maxTries}`);
  const previous: PreviousTry[] = [];
  // One set of tokens for every try: a value keeps its token, and the reply is read back with it.
  const sealed = new SealedValues();
  let lastProblems: string[] = [];
  for (let tries = 1; tries <= maxTries; tries++) {
    deps.signal?.throwIfAborted();
    let reply: string;
    try {
      reply = await chat(deps.endpoint, buildMessages(input, previous, sealed), { signal: deps.signal, timeoutMs: deps.timeoutMs });
    } catch (err) {
      if (deps.signal?.aborted || (err instanceof LlmEndpointError && err.cancelled)) throw err;
      // An endpoint that fails (HTTP error, unreachable, timeout, no text) uses up a try too: the
      // tries bound how long a plan may take and how often a broken endpoint is called. There is no
      // reply to show the model, so the next try asks the same question again.
      lastProblems = [`the LLM endpoint failed: ${err instanceof Error ? err.message : String(err)}`];
      continue;
    }
    let parsed: ParsedReply;
    try {
      parsed = parseReply(reply);
    } catch (err) {
      lastProblems = [err instanceof Error ? err.message : String(err)];
      previous.push({ reply, problems: lastProblems });
      continue;
    }
    const unsealed = sealed.unseal(parsed.docs);
    const problems = [...deps.validate(unsealed.docs), ...unsealed.problems];
    if (problems.length === 0) {
      // validate passing is what makes these KubeObjects (apiVersion, kind, metadata.name at least).
      const manifests = unsealed.docs as KubeObject[];
      // Written as the deterministic planner writes its artifact, not the model's text (its comments and layout).
      return { manifests, summary: parsed.summary, artifact: manifestsYaml(manifests), tries };
    }
    lastProblems = problems;
    previous.push({ reply, problems });
  }
  throw new Error(`the LLM planner gave no valid plan in ${maxTries} tries: ${shortList(lastProblems)}`);
}

/** The first problems, for an error message a person reads in a status line. */
function shortList(problems: readonly string[]): string {
  const shown = problems.slice(0, 3).join('; ');
  const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : '';
  const text = `${shown}${more}`;
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
