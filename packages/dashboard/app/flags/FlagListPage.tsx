import { PageHeader } from "../ui/PageHeader.tsx";

export function FlagListPage() {
  return <PageHeader title="Flag" />;
}
