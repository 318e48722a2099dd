/**
 * The LLM planner's reply format, which the system prompt (prompt.ts) demands word for word:
 *
 *   <plain-English summary: what will run, what changes from the live objects, and why>
 *
 *   ```yaml
 *   apiVersion: apps/v1
 *   kind: Deployment
 *   ...
 *   ---
 *   apiVersion: v1
 *   kind: Service
 *   ...
 *   ```
 *
 * The summary is everything before the block (it is what the user reads when approving); the block
 * is the only one of its kind and holds every manifest as multi-document YAML. Text after the block
 * is ignored. A reply that breaks the format throws: the planner counts that as a failed try and
 * sends the message back to the model, so messages say exactly what to fix.
 */
import { parseAllDocuments } from 'yaml';

export interface ParsedReply {
  readonly summary: string;
  /** One plain object per YAML document, empty documents dropped; not yet validated as Kubernetes objects. */
  readonly docs: unknown[];
}

// An opening fence at the start of a line: three or more backticks, an info string. Closing: the
// same run of backticks alone on its line (CommonMark), so a YAML value holding ``` does not end it.
const OPENING = /^(`{3,})[ \t]*([^\s`]*)[^\n`]*$/gm;

export function parseReply(text: string): ParsedReply {
  const fences = [...text.matchAll(OPENING)];
  const yamlFences = fences.filter((m) => /^ya?ml$/i.test(m[2] ?? ''));
  if (yamlFences.length === 0) throw new Error('the reply has no ```yaml block: put every manifest in one fenced ```yaml block after the summary');
  const open = yamlFences[0]!;
  const bodyStart = open.index + open[0].length + 1;
  const close = new RegExp(`^${open[1]}[ \\t]*$`, 'm').exec(text.slice(bodyStart));
  if (!close) throw new Error('the ```yaml block is not closed (was the reply cut off?): end it with ``` on a line of its own');
  const rest = text.slice(bodyStart + close.index + close[0].length);
  if ([...rest.matchAll(OPENING)].some((m) => /^ya?ml$/i.test(m[2] ?? ''))) {
    throw new Error('the reply has more than one ```yaml block: put every manifest in one block, documents separated by ---');
  }
  const summary = text.slice(0, open.index).trim();
  if (summary === '') throw new Error('the reply has no summary: start with a plain-English summary of the plan, then the ```yaml block');

  const body = text.slice(bodyStart, bodyStart + close.index);
  const docs: unknown[] = [];
  for (const [i, doc] of parseAllDocuments(body).entries()) {
    const error = doc.errors[0];
    if (error) throw new Error(`the \`\`\`yaml block is not valid YAML (document ${i + 1}): ${oneLine(error.message)}`);
    let value: unknown;
    try {
      value = doc.toJS(); // throws on alias bombs (yaml's maxAliasCount)
    } catch (err) {
      throw new Error(`the \`\`\`yaml block is not valid YAML (document ${i + 1}): ${oneLine(err instanceof Error ? err.message : String(err))}`);
    }
    if (value === null || value === undefined) continue; // `---` at the start or end
    if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`document ${i + 1} of the \`\`\`yaml block is not a mapping (a Kubernetes object): ${oneLine(String(JSON.stringify(value)))}`);
    docs.push(value);
  }
  if (docs.length === 0) throw new Error('the ```yaml block holds no manifests');
  return { summary, docs };
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
