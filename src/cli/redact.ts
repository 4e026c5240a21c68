/**
 * Hides the password of every URL in `text` (`redis://user:secret@host`
 * becomes `redis://user:***@host`): up to the last `@` of the URL, so a raw
 * `@` in the password does not end the mask early, and any `password=` query
 * parameter.
 */
export function redact(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)\S*@/gi, '$1***@')
    .replace(/([?&]password=)[^&\s]*/gi, '$1***');
}
