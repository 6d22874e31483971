import { useEffect, useState } from "hono/jsx/dom";

/** Quiet time after the last keystroke before the preview is asked for. */
const DEBOUNCE_MS = 400;

/**
 * A template's preview that follows the typing (docs/console.md, "Review requests"): on each change of the editor's
 * form it posts the fields (with the form's CSRF token) to the console's preview address, which renders them with
 * POST /v1/templates/preview and answers the preview panel the page itself shows (or the refusal of an unknown
 * variable, as a sentence). Without script the form's "Preview" button posts the same fields.
 */
export function TemplatePreview(props: { url: string; form: HTMLFormElement; initial: string }) {
  const [html, setHtml] = useState(props.initial);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let asked = 0;
    const ask = () => {
      const mine = ++asked;
      fetch(props.url, {
        method: "POST",
        body: new FormData(props.form),
        headers: { accept: "application/json" },
        credentials: "same-origin",
      })
        .then((res) => (res.ok ? (res.json() as Promise<{ html: string }>) : null))
        .then((next) => {
          // an older answer arriving late never replaces a newer one
          if (next && mine === asked) setHtml(next.html);
        })
        .catch(() => undefined);
    };
    const changed = () => {
      clearTimeout(timer);
      timer = setTimeout(ask, DEBOUNCE_MS);
    };
    props.form.addEventListener("input", changed);
    props.form.addEventListener("change", changed);
    return () => {
      clearTimeout(timer);
      props.form.removeEventListener("input", changed);
      props.form.removeEventListener("change", changed);
    };
  }, [props.url]);
  return <div dangerouslySetInnerHTML={{ __html: html }} />;
}
