#!/usr/bin/env bash
# make demo: agentproto end to end on a throwaway repository, with built-in
# defaults. Two clones share one ledger through a bare remote.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$here/bin:$PATH"
work=$(mktemp -d "${TMPDIR:-/tmp}/agentproto-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
# A private git identity and config, so the demo touches nothing of yours.
export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="Demo" GIT_AUTHOR_EMAIL="demo@example.com"
export GIT_COMMITTER_NAME="Demo" GIT_COMMITTER_EMAIL="demo@example.com"
mkdir -p "$HOME"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

step "a project, a bare remote, and two clones (alice, bob)"
git init -q --bare -b main "$work/remote.git"
git clone -q "$work/remote.git" "$work/alice" 2>/dev/null
cd "$work/alice"
echo "# demo" > README.md && git add README.md && git commit -q -m "initial" && git push -q origin main
git clone -q "$work/remote.git" "$work/bob"

step "git agentproto init (idempotent)"
run git agentproto init
run git agentproto init

step "alice records events"
run git agentproto ledger append --kind note --id plan-idea --data '{"text":"split the parser into three work packages"}'
printf '%s\n' \
  '{"kind":"x.gate","id":"gate-1","data":{"command":"make test","exit_code":0}}' \
  '{"kind":"note","id":"wp1-done","agent":"exec-1","data":{"files":["parser/lex.go"]}}' |
  run git agentproto ledger append --batch
echo "# replaying an append is a no-op; other content under the same id is a conflict (exit 3)"
run git agentproto ledger append --kind note --id plan-idea --data '{"text":"split the parser into three work packages"}'
set +e
git agentproto ledger append --kind note --id plan-idea --data '{"text":"something else"}'
echo "exit code: $?"
set -e

step "alice syncs: her writer ref goes to the remote"
run git agentproto sync

step "bob syncs, adds an event, syncs back"
cd "$work/bob"
run git agentproto init
run git agentproto sync
run git agentproto ledger append --kind note --id review-1 --data '{"text":"looks good"}'
run git agentproto sync

step "alice sees the same ledger as bob, in the same order"
cd "$work/alice"
run git agentproto sync
run git agentproto ledger log
diff <(git agentproto ledger log --json) <(cd "$work/bob" && git agentproto ledger log --json) && echo "alice and bob agree"

step "plain git sees the ledger too"
run git log --oneline --glob='refs/agentproto/ledger/*'
run git agentproto ledger show wp1-done
run git agentproto ledger verify

printf '\n\033[1mdemo done.\033[0m\n'
