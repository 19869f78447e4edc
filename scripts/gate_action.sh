#!/usr/bin/env bash
# The script behind action.yml (a composite GitHub Action); also runnable locally:
#
#   INPUT_SPEC=specs/x.req INPUT_BASE=main INPUT_HEAD=HEAD bash scripts/gate_action.sh run
#
# `install`  installs the checked-out project's own dependencies when INPUT_INSTALL_DEPS is "true", so a target
#            importing a third-party package can be checked (not only `unknown`): `pip install -e .` when the
#            repository (INPUT_PATH, default .) has a pyproject.toml or setup.py, else `pip install -r
#            requirements.txt` when it has one; otherwise it says why it did nothing. A failed install is an
#            error (exit 2: the gate's verdicts would be wrong without the dependencies).
# `run`      runs `evalgap gate` on INPUT_BASE..INPUT_HEAD of the repository in INPUT_PATH, writes gate.sarif,
#            gate.md and gate.json into INPUT_OUTPUT_DIR (default ./evalgap-gate), appends the Markdown to
#            $GITHUB_STEP_SUMMARY and sets the step outputs exit-code, sarif, markdown, json in $GITHUB_OUTPUT
#            (when those variables are set). INPUT_EXTRA_ARGS is split like a shell command line (quotes
#            respected) by Python's shlex, never by the shell: no glob, variable or command expansion, so
#            `--tests tests/**/*.py` reaches the gate literally. It always exits 0 so that the upload and
#            comment steps run; the action's last step exits with the gate's code.
# `comment`  posts the Markdown as a pull-request comment headed by the hidden marker MARKER below, or edits
#            the comment that already carries it (found through the GitHub API; another workflow's or a
#            person's comment is never touched), when INPUT_PR and GH_TOKEN are set; otherwise it says why it
#            did nothing. A token that cannot comment (fork pull requests get a read-only one) is a warning,
#            never a failure of the job.
set -euo pipefail

mode="${1:-run}"
out_dir="${INPUT_OUTPUT_DIR:-evalgap-gate}"
repo="${INPUT_PATH:-.}"
python="${PYTHON:-python3}"
MARKER='<!-- evalgap-gate -->'

log() { printf 'evalgap-gate: %s\n' "$*" >&2; }
warn() { printf '::warning title=evalgap gate::%s\n' "$*" >&2; }

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

install_deps() {
  if [[ "${INPUT_INSTALL_DEPS:-false}" != "true" ]]; then log "install-deps is not \"true\": no dependencies installed"; return 0; fi
  local cmd=()
  if [[ -f "$repo/pyproject.toml" || -f "$repo/setup.py" ]]; then
    cmd=("$python" -m pip install --quiet -e "$repo")
  elif [[ -f "$repo/requirements.txt" ]]; then
    cmd=("$python" -m pip install --quiet -r "$repo/requirements.txt")
  else
    log "install-deps: no pyproject.toml, setup.py or requirements.txt in $repo: nothing installed"
    return 0
  fi
  log "installing the project's dependencies: ${cmd[*]}"
  "${cmd[@]}" || { log "installing the project's dependencies failed"; exit 2; }
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
  local code=0
  if [[ -n "${INPUT_EXTRA_ARGS:-}" ]]; then
    local extra=()
    # shlex splits like a shell (quotes, backslashes) but expands nothing; NUL-separated so any byte survives
    local split='import shlex, sys
sys.stdout.write("".join(a + "\0" for a in shlex.split(sys.argv[1])))'
    if ! "$python" -c "$split" "$INPUT_EXTRA_ARGS" >/dev/null 2>&1; then
      log "extra-args cannot be split (an unclosed quote?): $INPUT_EXTRA_ARGS"
      code=2
    else
      mapfile -d '' extra < <("$python" -c "$split" "$INPUT_EXTRA_ARGS")
      args+=("${extra[@]}")
    fi
  fi
  if [[ "$code" == 0 ]]; then
    "${EVALGAP:-evalgap}" "${args[@]}" || code=$?
  fi
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
  local api="repos/${GH_REPO:?GH_REPO (owner/name) is required}" text id=""
  text="$(mktemp)"
  { printf '%s\n' "$MARKER"; cat "$body"; } > "$text"
  # the marker's own comment, if any: the first comment whose body holds the marker
  if ! id="$(gh api --paginate "$api/issues/$INPUT_PR/comments" \
               --jq ".[] | select(.body | contains(\"$MARKER\")) | .id" 2>/dev/null | head -n 1)"; then
    warn "cannot list the pull request's comments (a read-only token on a fork?): no comment posted"
    rm -f "$text"; return 0
  fi
  if [[ -n "$id" ]]; then
    gh api --method PATCH "$api/issues/comments/$id" -F "body=@$text" >/dev/null \
      || warn "cannot edit comment $id (a read-only token on a fork?): the summary is in the job summary"
  else
    gh api --method POST "$api/issues/$INPUT_PR/comments" -F "body=@$text" >/dev/null \
      || warn "cannot comment (a read-only token on a fork?): the summary is in the job summary"
  fi
  rm -f "$text"
  return 0
}

case "$mode" in
  install) install_deps ;;
  run) run_gate ;;
  comment) post_comment ;;
  *) log "unknown mode '$mode' (install | run | comment)"; exit 2 ;;
esac
