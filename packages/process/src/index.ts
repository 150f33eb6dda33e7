export {
  closing,
  part,
  startGroups,
  StartAborted,
  throwIfAborted,
  type Part,
  type Runnable,
  type RunnableGroups,
  type StartedGroups,
} from "./runnable.ts";
export {
  EXIT,
  runProcess,
  SHUTDOWN_SIGNALS,
  type ProcessCommand,
  type ProcessHost,
  type ShutdownSignal,
  type StartedProcess,
} from "./run-process.ts";
