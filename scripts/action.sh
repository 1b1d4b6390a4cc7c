#!/bin/sh
# The GitHub Action's step (action.yml): on a pull request from a wt/*
# branch, hold its head against the ledger's verification (verify
# --branch), review the change (review --base --head), and post both as
# one comment on the pull request, edited again on every run.
#
# Reads what Actions sets: GITHUB_EVENT_NAME, GITHUB_REF (refs/pull/N/merge),
# GITHUB_HEAD_REF, GITHUB_BASE_REF, GITHUB_REPOSITORY, GITHUB_SERVER_URL,
# GITHUB_OUTPUT, GITHUB_STEP_SUMMARY; GH_TOKEN for the comment. The inputs
# come as INPUT_GATE, INPUT_OWN (globs, one per line), INPUT_REMOTE,
# INPUT_MUTATION_BUDGET, INPUT_COMMENT and INPUT_FAIL_ON_FINDINGS.
set -eu

say() { printf 'agentproto-action: %s\n' "$*" >&2; }
output() { if [ -n "${GITHUB_OUTPUT:-}" ]; then printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; fi; }

case "${GITHUB_EVENT_NAME:-}" in
pull_request) ;;
*)
	say "event ${GITHUB_EVENT_NAME:-(none)} is not a pull request: nothing to do"
	exit 0
	;;
esac
head_ref=${GITHUB_HEAD_REF:?GITHUB_HEAD_REF is not set}
base_ref=${GITHUB_BASE_REF:?GITHUB_BASE_REF is not set}
case "$head_ref" in
wt/*) ;;
*)
	say "branch $head_ref is not a work package's (wt/*): nothing to do"
	exit 0
	;;
esac
number=${GITHUB_REF:-}
number=${number#refs/pull/}
number=${number%/merge}
case "$number" in
'' | *[!0-9]*)
	say "GITHUB_REF ${GITHUB_REF:-} does not name a pull request (refs/pull/N/merge)"
	exit 2
	;;
esac
remote=${INPUT_REMOTE:-origin}
host=${GITHUB_SERVER_URL:-https://github.com}
host=${host#*://}
host=${host%%/*}

# The ledger travels as refs/agentproto/*; actions/checkout fetches neither
# it nor the history review needs.
if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
	git fetch --quiet --no-tags --unshallow "$remote"
fi
# The other work packages' branches too: the review of an integration
# branch reads each WP's commits, as review PROJECT does.
git fetch --quiet --no-tags "$remote" \
	"+refs/heads/$head_ref:refs/agentproto-action/head" \
	"+refs/heads/$base_ref:refs/agentproto-action/base" \
	"+refs/heads/wt/*:refs/remotes/$remote/wt/*" \
	'refs/agentproto/*:refs/agentproto/*'
head=$(git rev-parse refs/agentproto-action/head)
base=$(git merge-base refs/agentproto-action/base "$head")

work=$(mktemp -d)
trap 'rm -rf "$work"; git update-ref -d refs/agentproto-action/head; git update-ref -d refs/agentproto-action/base' EXIT

# Each command prints its JSON document through --jq, which makes the
# Markdown of its section; its exit code is kept. A command that fails
# before printing leaves its error (stderr) in the section instead.
run() {
	name=$1
	shift
	set +e
	git agentproto "$@" >"$work/$name.md" 2>"$work/$name.err"
	code=$?
	set -e
	cat "$work/$name.err" >&2
	if [ ! -s "$work/$name.md" ]; then
		{
			printf '**%s** could not run (exit %d):\n\n```\n' "$name" "$code"
			tail -n 20 "$work/$name.err"
			printf '```\n'
		} >"$work/$name.md"
	fi
	eval "${name}_exit=$code"
}

list='if . == [] then "" else "\n" + ([.[:50][] | "\n- " + .] | join("")) end'
run verify verify --branch "$head_ref" --commit "$head" --jq \
	'"**verify** \(.project) \(if (.wp // "") == "" then "integration" else .wp end) at `'"$(printf %.12s "$head")"'`: **\(.verdict)**" + ([.findings // [] | .[]] | '"$list"')'

# One commit, one verdict: with the branch's plan in the ledger, review
# --branch is review PROJECT on the commits (the frozen gate, the briefs'
# perimeters, the reports' claims); without it, it judges base..head
# alone and says what that cannot see.
set -- review --branch "$head_ref" --head "$head" --base "$base"
if [ -n "${INPUT_GATE:-}" ]; then
	set -- "$@" --gate "$INPUT_GATE"
fi
if [ -n "${INPUT_MUTATION_BUDGET:-}" ]; then
	set -- "$@" --mutation-budget "$INPUT_MUTATION_BUDGET"
fi
# Globs one per line: split on newlines only, with no pathname expansion.
old_ifs=$IFS
IFS='
'
set -f
for glob in ${INPUT_OWN:-}; do
	[ -n "$glob" ] && set -- "$@" --own "$glob"
done
set +f
IFS=$old_ifs
run review "$@" --jq '
	(.findings // []) as $f
	| ([$f[] | select(.severity != "warning")] | length) as $errors
	| (if .judged == "plan" then "plan `\(.project)`\(if .wp then " \(.wp)" else "" end)" else "the change alone" end) as $what
	| "**review** of \($what), `\(.base[:12])..\(.head[:12])`: **\(if .ok then "ok" else "failed" end)**, \($errors) errors, \(($f | length) - $errors) warnings"
	+ ([(.notes // [])[] | "\n\n> " + .] | join(""))
	+ (if (.unseen // []) == [] then "" else "\n\n> It cannot see what review PROJECT sees in the ledger:" + ([.unseen[] | "\n> - " + .] | join("")) end)
	+ ([(.gates // [])[] | "gate \(.where) `\(.gate.command)`: exit \(.gate.exit_code)"]
		+ [$f[] | "\(.severity // "error") `\(.code)` \(if .wp then "\(.wp) " else "" end)\(if .file then "`\(.file)\(if .line then ":\(.line)" else "" end)` " else "" end)\(.message)"]
		| '"$list"')
	+ (if ($f | length) > 50 then "\n\n(\(($f | length) - 50) more: see the job log)" else "" end)'

{
	printf '<!-- agentproto -->\n### agentproto: `%s`\n\n' "$head_ref"
	cat "$work/verify.md"
	printf '\n\n'
	cat "$work/review.md"
	printf '\n'
} >"$work/comment.md"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	cat "$work/comment.md" >>"$GITHUB_STEP_SUMMARY"
fi
output verify-exit "$verify_exit"
output review-exit "$review_exit"

if [ "${INPUT_COMMENT:-true}" = true ]; then
	git agentproto pr comment "$number" --body-file "$work/comment.md" --repo "${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}" --host "$host"
fi

if [ "${INPUT_FAIL_ON_FINDINGS:-true}" = true ] && { [ "$verify_exit" -ne 0 ] || [ "$review_exit" -ne 0 ]; }; then
	say "verify exit $verify_exit, review exit $review_exit"
	exit 1
fi
