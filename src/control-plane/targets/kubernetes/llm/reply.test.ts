import { describe, expect, it } from 'vitest';
import { parseReply } from './reply.js';

const FENCE = '```';

describe('parseReply', () => {
  it('reads the summary before the block and every document inside it', () => {
    const reply = [
      'Runs **web** as one Deployment with a Service.',
      '',
      'Nothing changes in the cluster besides the image.',
      '',
      `${FENCE}yaml`,
      '---',
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      '  name: web',
      '  annotations: {note: "a ``` inside a value"}',
      '---',
      'apiVersion: v1',
      'kind: Service',
      'metadata: {name: web}',
      '---',
      FENCE,
      'Anything after the block is ignored.',
    ].join('\n');
    expect(parseReply(reply)).toEqual({
      summary: 'Runs **web** as one Deployment with a Service.\n\nNothing changes in the cluster besides the image.',
      docs: [
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', annotations: { note: 'a ``` inside a value' } } },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' } },
      ],
    });
  });

  it('accepts ```yml and a fence of four backticks', () => {
    expect(parseReply(`Plan.\n${FENCE}yml\nkind: Service\n${FENCE}`).docs).toEqual([{ kind: 'Service' }]);
    expect(parseReply(`Plan.\n\`\`\`\`yaml\ndata: {x: y}\n\`\`\`\`\n`).docs).toEqual([{ data: { x: 'y' } }]);
  });

  it('refuses a reply without a ```yaml block, saying what to do', () => {
    expect(() => parseReply('Here is the plan:\napiVersion: v1\nkind: Service')).toThrow('the reply has no ```yaml block: put every manifest in one fenced ```yaml block after the summary');
    expect(() => parseReply(`Plan.\n${FENCE}json\n{"kind": "Service"}\n${FENCE}`)).toThrow('no ```yaml block');
  });

  it('refuses YAML that does not parse, naming the document', () => {
    expect(() => parseReply(`Plan.\n${FENCE}yaml\nkind: Service\n---\nmetadata: {name: [web\n${FENCE}`)).toThrow(/^the ```yaml block is not valid YAML \(document 2\): /);
  });

  it('refuses a cut-off block, two blocks, no summary, a document that is no mapping, an empty block', () => {
    expect(() => parseReply(`Plan.\n${FENCE}yaml\nkind: Service\n`)).toThrow('the ```yaml block is not closed (was the reply cut off?)');
    expect(() => parseReply(`Plan.\n${FENCE}yaml\nkind: Service\n${FENCE}\nAnd:\n${FENCE}yaml\nkind: Deployment\n${FENCE}`)).toThrow('more than one ```yaml block');
    expect(() => parseReply(`${FENCE}yaml\nkind: Service\n${FENCE}`)).toThrow('the reply has no summary');
    expect(() => parseReply(`Plan.\n${FENCE}yaml\nkind: Service\n---\n- a list\n${FENCE}`)).toThrow('document 2 of the ```yaml block is not a mapping (a Kubernetes object): ["a list"]');
    expect(() => parseReply(`Plan.\n${FENCE}yaml\n---\n${FENCE}`)).toThrow('the ```yaml block holds no manifests');
  });
});
