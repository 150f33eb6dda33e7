import { PageHeader } from "../ui/PageHeader.tsx";

export function AuditPage() {
  return <PageHeader title="Audit" />;
}
