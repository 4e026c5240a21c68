/** Hides the password of every URL in `text` (`redis://user:secret@host` becomes `redis://user:***@host`). */
export function redact(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/gi, '$1***@');
}
