export { KubeApiError, parseStatusBody, type StatusBody } from "./api-error.ts";
