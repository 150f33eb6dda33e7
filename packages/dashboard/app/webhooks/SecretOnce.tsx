import type { CreatedWebhook } from "@svc/core/browser";
import { useState } from "react";

/**
 * The new webhook's secret, shown once: the API never returns it again. Held in this
 * component's state only, and gone when dismissed.
 */
export function SecretOnce({ created, onDone }: { created: CreatedWebhook; onDone: () => void }) {
  const [copied, setCopied] = useState<string>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.secret);
      setCopied("Copied.");
    } catch {
      setCopied("Could not copy: select the secret and copy it.");
    }
  };
  return (
    <section className="card secret-once" aria-labelledby="secret-once-title">
      <h2 id="secret-once-title">Webhook {created.name} created: its signing secret</h2>
      <p className="notice">
        Copy it now: <strong>you will not see it again.</strong> The receiver checks each request&apos;s{" "}
        <code>svc-signature</code> with it.
      </p>
      <div className="secret-row">
        <input
          aria-label="Signing secret"
          className="mono"
          readOnly
          value={created.secret}
          onFocus={(e) => {
            e.target.select();
          }}
        />
        <button type="button" onClick={() => void copy()}>
          Copy secret
        </button>
        <button type="button" className="primary" onClick={onDone}>
          Done
        </button>
      </div>
      <p role="status" className="hint">
        {copied}
      </p>
    </section>
  );
}
