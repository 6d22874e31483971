/**
 * Copy buttons (the Yelp manual path: the reply is copied, then posted by hand on Yelp). The server renders
 * each button `hidden` with `data-copy` naming the element whose text it copies: without script the text
 * is simply there to select. The result is announced in the page's status region.
 */
export function enableCopyButtons(root: Document): void {
  const status = root.getElementById("live-status");
  for (const button of root.querySelectorAll<HTMLButtonElement>("button[data-copy]")) {
    const source = root.getElementById(button.dataset.copy ?? "");
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener("click", () => {
      navigator.clipboard.writeText(source.textContent ?? "").then(
        () => {
          if (status) status.textContent = "Reply copied to the clipboard.";
        },
        () => {
          if (status) status.textContent = "Copying failed: select the text and copy it by hand.";
        },
      );
    });
  }
}
