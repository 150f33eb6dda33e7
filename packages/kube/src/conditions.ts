/** Whether a Pod or Node reports the condition Ready with status True. */
export function isReady(object: {
  status?: { conditions?: readonly { type: string; status: string }[] };
}): boolean {
  return object.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
}
