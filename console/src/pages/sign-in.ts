// Sign-in: the key is checked against GET /v1/me and kept in sessionStorage only. A rejected key gets one message
// whatever the reason (unknown, wrong secret, disabled, expired), like the API's own 401.
import { ApiError, session, whoAmI } from '../api.js';
import { el, field, replace } from '../dom.js';

export function signInPage(main: HTMLElement, signedIn: () => Promise<void>): void {
  const key = el('input', { type: 'password', autocomplete: 'off', spellcheck: 'false', required: true });
  const message = el('p', { class: 'error', role: 'alert' });
  const form = el('form', { class: 'card narrow' },
    el('h1', {}, 'Sign in'),
    el('p', { class: 'muted' }, 'Paste an API key of your account. It stays in this browser tab only and is sent in a header, never in a link.'),
    field('API key', key),
    el('button', { type: 'submit' }, 'Sign in'),
    message);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    replace(message);
    void (async () => {
      try {
        await whoAmI(key.value.trim());
      } catch (error) {
        replace(message, error instanceof ApiError && (error.status === 401 || error.status === 403)
          ? 'That API key was not accepted.'
          : 'The service could not be reached; try again.');
        return;
      }
      session.set(key.value.trim());
      key.value = '';
      await signedIn();
    })();
  });
  replace(main, form);
  key.focus();
}
