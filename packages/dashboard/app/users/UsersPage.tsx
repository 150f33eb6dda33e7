import { PageHeader } from "../ui/PageHeader.tsx";

export function UsersPage() {
  return <PageHeader title="User" />;
}
