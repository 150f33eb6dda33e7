import { PageHeader } from "../ui/PageHeader.tsx";

export function ClusterListPage() {
  return <PageHeader title="Cluster" />;
}
