#!/usr/bin/env bash
# make demo: the supervisor pipeline end to end on a throwaway repository,
# with built-in defaults and the scripted adapter as executors:
#   plan (3 work packages) -> freeze -> dispatch (WP0, then WP1 and WP2 in
#   parallel) -> verify catches WP2 writing outside its perimeter -> a second
#   prompt fixes it -> checkpoint -> consolidate (shared-file wiring) ->
#   review -> pull request (dry run). Two clones share the ledger.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$here/bin:$PATH"
work=$(mktemp -d "${TMPDIR:-/tmp}/agentproto-demo.XXXXXX")
cleanup() {
  # Sessions end with the demo; their daemon stops when idle.
  rm -rf "$work"
}
trap cleanup EXIT
# A private git identity and config, so the demo touches nothing of yours.
export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 AGENTPROTO_WORKTREES_ROOT="$work/worktrees" AGENTPROTO_DAEMON_IDLE=5s
export GIT_AUTHOR_NAME="Demo" GIT_AUTHOR_EMAIL="demo@example.com"
export GIT_COMMITTER_NAME="Demo" GIT_COMMITTER_EMAIL="demo@example.com"
mkdir -p "$HOME"
start=$(date +%s)

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '\033[2m$ %s\033[0m\n' "$*"; "$@"; }

step "a project with a test gate, a bare remote, a clone"
git init -q --bare -b main "$work/remote.git"
git clone -q "$work/remote.git" "$work/app" 2>/dev/null
cd "$work/app"
mkdir -p lib tests api
cat > test.sh <<'SH'
#!/bin/sh
# The gate: every tests/*_test.sh must pass.
for t in tests/*_test.sh; do
  [ -e "$t" ] || continue
  sh "$t" || { echo "FAIL $t"; exit 1; }
  echo "ok   $t"
done
SH
printf '# tools: one line per tool (name path)\n' > registry.txt
printf '# demo app\nSmall text tools.\n' > README.md
printf '# Definition of done\nThe gate (sh test.sh) exits 0 and every tool is in registry.txt.\n' > AGENTS.md
cat > agentproto.toml <<'TOML'
[dispatch]
adapter = "scripted"
[pr]
repo = "example/demo-app"
TOML
git add -A && git commit -q -m "initial" && git push -q origin main
run git agentproto init

step "a plan: SPEC, contract, three work packages with disjoint perimeters"
run git agentproto plan init demo --gate "sh test.sh"
run git agentproto plan new-wp demo WP1 --title "upper tool"
run git agentproto plan new-wp demo WP2 --title "lower tool"
cat > .plans/demo/plan.toml <<'TOML'
name = "demo"
base = "main"
gate = "sh test.sh"
shared = ["registry.txt"]

[[wp]]
id = "WP0"
title = "Freeze the tool contract"
brief = "WP0-brief.md"
owns = ["api/**"]

[[wp]]
id = "WP1"
title = "upper tool"
brief = "WP1-brief.md"
owns = ["lib/upper.sh", "tests/upper_test.sh"]
reads = ["api/**"]
depends_on = ["WP0"]

[[wp]]
id = "WP2"
title = "lower tool"
brief = "WP2-brief.md"
owns = ["lib/lower.sh", "tests/lower_test.sh"]
reads = ["api/**"]
depends_on = ["WP0"]
TOML
cat > .plans/demo/SPEC.md <<'MD'
# SPEC: demo
## Goal
Two text tools, upper and lower, registered in registry.txt.
## Changes
- `api/contract.txt`: the tool contract (WP0).
- `lib/upper.sh`, `tests/upper_test.sh`: upper (WP1).
- `lib/lower.sh`, `tests/lower_test.sh`: lower (WP2).
- `registry.txt`: one line per tool (shared: wired by the supervisor).
MD
# Each brief gets its real fork and, for the scripted executor, its script.
for wp in WP0 WP1 WP2; do
  sed -i 's/^- (fork): default (choice)\.$/- how a tool reads input: default stdin, one line at a time./' ".plans/demo/$wp-brief.md"
done
cat >> .plans/demo/WP0-brief.md <<'MD'

## Script (what the scripted executor does)
```agentproto-script
{"op":"write","path":"api/contract.txt","content":"A tool reads stdin and writes stdout; it is registered as: NAME lib/NAME.sh\n"}
{"op":"say","text":"contract written"}
{"op":"report","report":{"wp":"WP0","files":["api/contract.txt"],"design_choices":["stdin to stdout"],"wiring":[],"exit_codes":[{"command":"sh test.sh","exit_code":0}]}}
```
MD
cat >> .plans/demo/WP1-brief.md <<'MD'

## Script (what the scripted executor does)
```agentproto-script
{"op":"write","path":"lib/upper.sh","content":"#!/bin/sh\ntr 'a-z' 'A-Z'\n"}
{"op":"write","path":"tests/upper_test.sh","content":"#!/bin/sh\n[ \"$(echo abc | sh lib/upper.sh)\" = ABC ] || exit 1\n"}
{"op":"run","cmd":"sh test.sh"}
{"op":"report","report":{"wp":"WP1","files":["lib/upper.sh","tests/upper_test.sh"],"design_choices":["tr for case mapping"],"wiring":[{"file":"registry.txt","line":"upper lib/upper.sh"}],"claims":["tool:upper"],"exit_codes":[{"command":"sh test.sh","exit_code":0}]}}
```
MD
cat >> .plans/demo/WP2-brief.md <<'MD'

## Script (what the scripted executor does)
```agentproto-script
{"op":"write","path":"lib/lower.sh","content":"#!/bin/sh\ntr 'A-Z' 'a-z'\n"}
{"op":"write","path":"tests/lower_test.sh","content":"#!/bin/sh\n[ \"$(echo ABC | sh lib/lower.sh)\" = abc ] || exit 1\n"}
{"op":"write","path":"lib/notes.txt","content":"scratch notes the executor should not have left here\n"}
{"op":"run","cmd":"sh test.sh"}
{"op":"report","report":{"wp":"WP2","files":["lib/lower.sh","tests/lower_test.sh"],"design_choices":["tr for case mapping"],"wiring":[{"file":"registry.txt","line":"lower lib/lower.sh"}],"claims":["tool:lower"],"exit_codes":[{"command":"sh test.sh","exit_code":0}]}}
```
MD
run git agentproto plan check demo
run git agentproto plan freeze demo

step "dispatch: WP0 first and alone, then WP1 and WP2 in parallel, each verified on disk"
set +e
git agentproto dispatch demo
code=$?
set -e
echo "(dispatch exited $code: verify caught WP2 writing lib/notes.txt, outside its perimeter;"
echo " the sandbox lets WP2 write only lib/ and tests/, the directories its perimeter lies in,"
echo " and verify judges each file)"

step "a second prompt to WP2's session fixes it"
wp2=$(git agentproto sessions ls | awk '$2 == "demo/WP2" {print $1}' | tail -n 1)
cat > "$work/fix.prompt" <<'P'
Remove lib/notes.txt: it is outside your perimeter.
```agentproto-script
{"op":"delete","path":"lib/notes.txt"}
{"op":"report","report":{"wp":"WP2","files":["lib/lower.sh","tests/lower_test.sh"],"design_choices":["tr for case mapping"],"wiring":[{"file":"registry.txt","line":"lower lib/lower.sh"}],"claims":["tool:lower"],"exit_codes":[{"command":"sh test.sh","exit_code":0}]}}
```
P
run git agentproto sessions prompt "$wp2" --file "$work/fix.prompt"

step "run: continues where dispatch stopped, then checkpoint, consolidate, review, pull request (dry run)"
run git agentproto run demo --dry-run

step "what the integration branch holds"
integ="$AGENTPROTO_WORKTREES_ROOT/app/demo-integration"
run git -C "$integ" log --oneline -8
run cat "$integ/registry.txt"

step "the ledger: every step is an event on refs/agentproto/ledger/*"
git agentproto ledger log --json | sed -n 's/.*"kind":"\([a-z_]*\)".*/\1/p' | sort | uniq -c | sort -rn
run git agentproto ledger verify
run git agentproto sync

step "sessions end; the pipeline's sessions are cleaned"
for s in $(git agentproto sessions ls | awk '{print $1}'); do git agentproto sessions kill "$s" >/dev/null; done
run git agentproto sessions ls --all

printf '\n\033[1mdemo done in %ss.\033[0m\n' "$(( $(date +%s) - start ))"
