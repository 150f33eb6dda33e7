/**
 * Hands text to the browser as a file download: a Blob URL on a temporary link (no inline
 * script, no data: URL, so the CSP stays strict), revoked once the download has started.
 */
export function downloadText(fileName: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The click starts the download synchronously in every browser; revoking later is harmless.
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 60_000);
}
