import type { FastifySwaggerUiConfigOptions } from '@fastify/swagger-ui';

type SwaggerUiPlugin = NonNullable<FastifySwaggerUiConfigOptions['plugins']>[number];

/**
 * The sign-in of /docs as one form: Swagger UI gives every apiKey scheme a dialog section and an
 * Authorize button of its own, and shows each value in a plain text box. This Swagger UI plugin
 * puts the token and the secret into one section with one Authorize button, the secret in a
 * password box. The document keeps its two schemes (X-Token and X-Signature, what a client
 * sends); sign-in-browser.js turns the secret into the signature before each request.
 *
 * Plain browser JavaScript, kept as text so that no build step touches it (like
 * sign-in-browser.ts); test/browser/api-docs.test.ts drives it in chromium.
 */
export const SIGN_IN_FORM_JS = `
window.fulfilSignInForm = function (system) {
  var h = system.React.createElement;
  var BOXES = {
    token: { id: 'fulfil-token', label: 'Token', type: 'text',
      hint: "Your credential's token, sent as X-Token." },
    signature: { id: 'fulfil-secret', label: 'Secret', type: 'password',
      hint: "Your credential's secret. This page signs each request with it in your browser (X-Signature); the secret itself is never sent." }
  };
  function ours(definitions) { return definitions.has('token') || definitions.has('signature'); }

  function CredentialBox(props) {
    var box = BOXES[props.name];
    var given = props.authorized && props.authorized.getIn([props.name, 'value']);
    var AuthError = props.getComponent('authError');
    var errors = props.errSelectors.allErrors().filter(function (e) { return e.get('authId') === props.name; });
    return h('div', { className: 'fulfil-credential', style: { marginBottom: '12px' } },
      h('label', { htmlFor: box.id, style: { display: 'block', marginBottom: '4px' } }, box.label),
      given
        ? h('code', null, ' ****** ')
        : h('input', {
            id: box.id, type: box.type, autoComplete: 'off', spellCheck: false,
            style: { width: '100%', maxWidth: '34em', boxSizing: 'border-box', margin: 0 },
            onChange: function (e) { props.onChange({ name: props.name, schema: props.schema, value: e.target.value }); }
          }),
      h('p', { style: { margin: '4px 0 0' } }, box.hint),
      errors.valueSeq().map(function (e, i) { return h(AuthError, { error: e, key: i }); }).toArray());
  }

  return {
    wrapComponents: {
      apiKeyAuth: function (Original) {
        return function (props) { return h(BOXES[props.name] ? CredentialBox : Original, props); };
      }
    },
    statePlugins: {
      auth: {
        wrapSelectors: {
          // One section (one form, one Authorize button) for the token and the secret together.
          definitionsToAuthorize: function (original) {
            return function () {
              var list = original.apply(null, Array.prototype.slice.call(arguments, 1));
              var mine = list.filter(ours);
              if (mine.size < 2) return list;
              var merged = mine.reduce(function (a, b) { return a.merge(b); });
              return list.filter(function (d) { return !ours(d); }).insert(list.findIndex(ours), merged);
            };
          }
        }
      }
    }
  };
};
`;

// Swagger UI's configuration is written into its page as source text: plugins are handed over as
// functions built from text (no compiler helper can creep in). Setting `plugins` replaces Swagger
// UI's default list, so the one plugin that loads the document comes first.
export const swaggerUiPlugins = [
  new Function('system', 'return SwaggerUIBundle.plugins.DownloadUrl(system);'),
  new Function('system', 'return window.fulfilSignInForm(system);'),
] as SwaggerUiPlugin[];
