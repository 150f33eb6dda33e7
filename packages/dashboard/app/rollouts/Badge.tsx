import { useEffect, useState } from "react";
import type { Badge } from "./rollout-model.ts";

/** A phase as a badge (the colour is never the only sign: the label says it). */
export function PhaseBadge({ badge, title }: { badge: Badge; title?: string | undefined }) {
  return (
    <span className={badge.tone === "" ? "badge" : `badge ${badge.tone}`} title={title}>
      {badge.label}
    </span>
  );
}

/** The time now, ticking every second while `active` (a countdown on screen), else still. */
export function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      setNow(Date.now());
    }, 1000);
    return () => {
      clearInterval(timer);
    };
  }, [active]);
  return now;
}
