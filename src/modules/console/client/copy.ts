/**
 * Copy buttons (the Yelp manual path: the reply is copied, then posted by hand on Yelp; a new API key). The
 * server renders each button `hidden` with `data-copy` naming the element whose text (or, for a field, value)
 * it copies, and `data-copied` the sentence announced once copied: without script the text is simply there
 * to select. The result is announced in the page's status region.
 */
export function enableCopyButtons(root: Document): void {
  const status = root.getElementById("live-status");
  for (const button of root.querySelectorAll<HTMLButtonElement>("button[data-copy]")) {
    const source = root.getElementById(button.dataset.copy ?? "");
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener("click", () => {
      const text = source instanceof HTMLInputElement ? source.value : (source.textContent ?? "");
      navigator.clipboard.writeText(text).then(
        () => {
          if (status) status.textContent = button.dataset.copied ?? "Copied to the clipboard.";
        },
        () => {
          if (status) status.textContent = "Copying failed: select the text and copy it by hand.";
        },
      );
    });
  }
}
