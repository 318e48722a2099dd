import { describe, expect, it } from 'vitest';
import { fillReferences, kubeLiteral } from './container-env.js';

describe('container env', () => {
  it('fillReferences: ${DENV_X}, defaults and $DENV_X as Compose would; other text untouched', () => {
    const vars = { DENV_DB_HOST: 'prod-db', DENV_EMPTY: '' };
    expect(fillReferences('pg://${DENV_DB_HOST}:${DENV_DB_PORT:-5432}/$DENV_DB_HOST ${DENV_EMPTY-x}${DENV_EMPTY:-y} $HOME', vars)).toBe('pg://prod-db:5432/prod-db y $HOME');
    expect(fillReferences('${DENV_MISSING}|${DENV_MISSING-d}', vars)).toBe('|d');
  });

  it('kubeLiteral: $( and $$ doubled so Kubernetes expansion gives the value back; a lone $ kept', () => {
    expect(kubeLiteral('a$(B)c$$d$e$')).toBe('a$$(B)c$$$d$e$');
    expect(kubeLiteral('plain')).toBe('plain');
  });
});
