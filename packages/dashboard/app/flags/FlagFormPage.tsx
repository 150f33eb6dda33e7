import type { FlagView } from "@svc/core/browser";
import { Link, useParams, useSearchParams } from "react-router";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import { QueryState } from "../ui/states.tsx";
import { DefinitionFields } from "./DefinitionFields.tsx";
import { DeliveryFields } from "./DeliveryFields.tsx";
import { emptyForm, formFromFlag, type FlagForm, type FormProblems } from "./form-model.ts";
import { flagHref } from "./list-model.ts";
import { PreviewPanel } from "./PreviewPanel.tsx";
import { useFlag } from "./queries.ts";
import { TargetingEditor } from "./TargetingEditor.tsx";
import { TryContextPanel } from "./TryContextPanel.tsx";
import { useFlagEditor } from "./useFlagEditor.ts";

/** Why the last save failed: a newer version saved meanwhile, the API's refusal, or the form's problems. */
function SaveFeedback({
  conflict,
  error,
  problems,
}: {
  conflict: { message: string; flag: FlagView } | undefined;
  error: unknown;
  /** The form's problems, once a save was tried with them. */
  problems: FormProblems | undefined;
}) {
  return (
    <>
      {conflict !== undefined ? (
        <p className="error" role="alert">
          Someone changed this flag since you opened it: {conflict.message}.{" "}
          <Link to={flagHref(conflict.flag)} reloadDocument>
            Reload it
          </Link>{" "}
          to edit the newest version.
        </p>
      ) : (
        <ErrorMessage error={error} />
      )}
      {problems !== undefined && (
        <p className="error" role="alert">
          Some fields need attention: {Object.values(problems).join("; ")}
        </p>
      )}
    </>
  );
}

function FormActions({ flag, pending }: { flag: FlagView | undefined; pending: boolean }) {
  return (
    <div className="form-actions">
      <button type="submit" className="primary" disabled={pending}>
        {pending ? "Saving…" : flag === undefined ? "Create flag" : "Save changes"}
      </button>
      <Link to={flag === undefined ? "/flags" : flagHref(flag)} className="button">
        Cancel
      </Link>
    </div>
  );
}

/** Create (no `flag`) or edit a flag; the preview shows what saving would do before it is done. */
function FlagEditor({ flag: opened, initial }: { flag: FlagView | undefined; initial: FlagForm }) {
  const {
    flag,
    form,
    update,
    problem,
    problems,
    ready,
    submitted,
    body,
    draft,
    address,
    mutation,
    conflict,
    save,
  } = useFlagEditor(opened, initial);

  return (
    <form className="flag-form" onSubmit={(event) => void save(event)} noValidate>
      <DefinitionFields
        form={form}
        update={update}
        problem={problem}
        editing={flag !== undefined}
        defaultValue={body.defaultValue}
      />
      <div className="card">
        <TargetingEditor
          type={form.type}
          value={form.value}
          targeting={form.targeting}
          onChange={(targeting) => {
            update({ targeting });
          }}
          problem={problem}
          draft={draft}
        />
      </div>
      <TryContextPanel draft={draft} />
      <div className="card">
        <DeliveryFields form={form} update={update} problem={problem} />
      </div>
      <PreviewPanel body={body} address={address} ready={ready} />
      <SaveFeedback
        conflict={conflict}
        error={mutation.error}
        problems={submitted && !ready ? problems : undefined}
      />
      <FormActions flag={flag} pending={mutation.isPending} />
    </form>
  );
}

export function NewFlagPage() {
  const [params] = useSearchParams();
  const initial = emptyForm(params.get("cluster") ?? "", params.get("namespace") ?? "");
  return (
    <>
      <PageHeader title="New flag" />
      <FlagEditor flag={undefined} initial={initial} />
    </>
  );
}

export function EditFlagPage() {
  const { clusterId = "", namespace = "", name = "" } = useParams();
  const flag = useFlag({ clusterId, namespace, name });
  return (
    <>
      <PageHeader title={`Edit ${name}`} />
      {/* The form starts from the flag as first loaded; later refreshes do not touch what is typed. */}
      <QueryState query={flag} what="the flag">
        {(loaded) => <FlagEditor flag={loaded} initial={formFromFlag(loaded)} />}
      </QueryState>
    </>
  );
}
