import { PageHeader } from "../ui/PageHeader.tsx";

export function AccountPage() {
  return <PageHeader title="Your account" />;
}
