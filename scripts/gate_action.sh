#!/usr/bin/env bash
# The script behind action.yml (a composite GitHub Action); also runnable locally:
#
#   INPUT_SPEC=specs/x.req INPUT_BASE=main INPUT_HEAD=HEAD bash scripts/gate_action.sh run
#
# `run`     runs `evalgap gate` on INPUT_BASE..INPUT_HEAD of the repository in INPUT_PATH (default .), writes
#           gate.sarif, gate.md and gate.json into INPUT_OUTPUT_DIR (default ./evalgap-gate), appends the
#           Markdown to $GITHUB_STEP_SUMMARY and sets the step outputs exit-code, sarif, markdown, json in
#           $GITHUB_OUTPUT (when those variables are set). It always exits 0 so that the upload and comment
#           steps run; the action's last step exits with the gate's code.
# `comment` posts (or updates) the Markdown as a pull-request comment with the GitHub CLI, when INPUT_PR and
#           GH_TOKEN are set; otherwise it says why it did nothing.
set -euo pipefail

mode="${1:-run}"
out_dir="${INPUT_OUTPUT_DIR:-evalgap-gate}"
repo="${INPUT_PATH:-.}"

log() { printf 'evalgap-gate: %s\n' "$*" >&2; }

have_commit() { git -C "$repo" cat-file -e "$1^{commit}" 2>/dev/null; }

fetch_if_missing() {
  local rev="$1"
  if ! have_commit "$rev"; then
    log "fetching $rev (use actions/checkout with fetch-depth: 0 to avoid this)"
    git -C "$repo" fetch --no-tags --quiet origin "$rev" || true
  fi
}

set_output() {
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"
  fi
}

run_gate() {
  : "${INPUT_SPEC:?INPUT_SPEC (the .req spec, repository-relative) is required}"
  local base="${INPUT_BASE:-HEAD~1}" head="${INPUT_HEAD:-HEAD}"
  mkdir -p "$out_dir"
  fetch_if_missing "$base"
  fetch_if_missing "$head"
  local args=(gate "$repo" --spec "$INPUT_SPEC" --base "$base" --head "$head"
              --sarif "$out_dir/gate.sarif" --markdown "$out_dir/gate.md" --json "$out_dir/gate.json")
  [[ -n "${INPUT_BUDGET:-}" ]] && args+=(--budget "$INPUT_BUDGET")
  [[ -n "${INPUT_PROFILE:-}" ]] && args+=(--profile "$INPUT_PROFILE")
  [[ "${INPUT_FAIL_ON_UNEXPLAINED:-false}" == "true" ]] && args+=(--fail-on-unexplained)
  [[ "${INPUT_INSTALL_DEPS:-false}" == "true" ]] && args+=(--install-deps)
  if [[ -n "${INPUT_EXTRA_ARGS:-}" ]]; then
    # shellcheck disable=SC2206 # word splitting of extra arguments is intended
    args+=(${INPUT_EXTRA_ARGS})
  fi
  local code=0
  "${EVALGAP:-evalgap}" "${args[@]}" || code=$?
  if [[ ! -f "$out_dir/gate.md" ]]; then
    printf '## evalgap gate: error\n\nThe gate did not run (exit code %s); see the job log.\n' "$code" > "$out_dir/gate.md"
  fi
  if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
    cat "$out_dir/gate.md" >> "$GITHUB_STEP_SUMMARY"
  fi
  set_output exit-code "$code"
  set_output sarif "$out_dir/gate.sarif"
  set_output markdown "$out_dir/gate.md"
  set_output json "$out_dir/gate.json"
  log "gate exit code $code (0 ok, 1 refuted or gaming finding, 2 usage/spec error, 3 only unknowns)"
}

post_comment() {
  local body="$out_dir/gate.md"
  if [[ -z "${INPUT_PR:-}" ]]; then log "not a pull request: no comment posted"; return 0; fi
  if [[ -z "${GH_TOKEN:-}" ]]; then log "GH_TOKEN not set: no comment posted"; return 0; fi
  if ! command -v gh >/dev/null; then log "GitHub CLI (gh) not found: no comment posted"; return 0; fi
  [[ -f "$body" ]] || { log "$body missing: no comment posted"; return 0; }
  gh pr comment "$INPUT_PR" --edit-last --body-file "$body" 2>/dev/null \
    || gh pr comment "$INPUT_PR" --body-file "$body"
}

case "$mode" in
  run) run_gate ;;
  comment) post_comment ;;
  *) log "unknown mode '$mode' (run | comment)"; exit 2 ;;
esac
