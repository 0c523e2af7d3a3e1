/** A CI job's secrets, as the security tests put them in revloop's environment. */
/** What a CI job's environment holds besides what programs need. */
export const JOB_SECRETS: Record<string, string> = {
  GITHUB_TOKEN: 'ghs_jobtoken0000000000000000000000000000',
  GH_TOKEN: 'ghp_ghtoken000000000000000000000000000000',
  GITLAB_TOKEN: 'glpat-gitlabtoken00000000000',
  ANTHROPIC_API_KEY: 'sk-ant-api03-secret-0000',
  OPENAI_API_KEY: 'sk-proj-secret-0000',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-request-token-0000',
  ACTIONS_RUNTIME_TOKEN: 'runtime-token-0000',
  PGPASSWORD: 'pg-password-0000',
  REVLOOP_STORE: 'postgres://ci:hunter2@db.internal/revloop',
};
