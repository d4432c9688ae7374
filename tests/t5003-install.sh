#!/bin/sh
# make install writes the binaries, the man pages and the bash completion
# under DESTDIR/PREFIX and nothing else; make uninstall removes exactly
# that, and the folders install made when they are left empty.  The completion completes options, --format values and -p with
# running processes.
. "$(dirname "$0")/lib.sh"

san=""
case $B in *san*) san="SANITIZE=1" ;; esac
# shellcheck disable=SC2086 # san is one word or none
make -s -C "$TOP" $san B="$B" DESTDIR="$TMP/d" PREFIX=/opt/sp install \
	>"$TMP/log" 2>&1 || fail "make install: $(tail -n 5 "$TMP/log")"
(cd "$TMP/d" && find . -type f -o -type l | sort) >"$TMP/files"
cat >"$TMP/want" <<'EOF_OUT'
./opt/sp/bin/sp-archive
./opt/sp/bin/sp-dump
./opt/sp/bin/sp-fold
./opt/sp/bin/sp-profile
./opt/sp/bin/sp-record
./opt/sp/bin/sp-symbolize
./opt/sp/share/bash-completion/completions/sp-archive
./opt/sp/share/bash-completion/completions/sp-dump
./opt/sp/share/bash-completion/completions/sp-fold
./opt/sp/share/bash-completion/completions/sp-profile
./opt/sp/share/bash-completion/completions/sp-record
./opt/sp/share/bash-completion/completions/sp-symbolize
./opt/sp/share/man/man1/sp-archive.1
./opt/sp/share/man/man1/sp-dump.1
./opt/sp/share/man/man1/sp-fold.1
./opt/sp/share/man/man1/sp-profile.1
./opt/sp/share/man/man1/sp-record.1
./opt/sp/share/man/man1/sp-symbolize.1
./opt/sp/share/man/man5/sp-records.5
./opt/sp/share/man/man5/sp-spool.5
EOF_OUT
diff -u "$TMP/want" "$TMP/files" || fail "installed files differ"
"$TMP/d/opt/sp/bin/sp-fold" --version >/dev/null || fail "installed sp-fold"

# The completion, as bash runs it for a user.
if command -v bash >/dev/null; then
	comp() {	# CWORD WORD...: the completions of word CWORD
		PATH="$TMP/d/opt/sp/bin:$PATH" bash -c '
			. "$0"; n=$1; shift; COMP_WORDS=("$@"); COMP_CWORD=$n
			_sp_complete "$1"; printf "%s\n" "${COMPREPLY[@]}"' \
			"$TMP/d/opt/sp/share/bash-completion/completions/sp-fold" "$@"
	}
	comp 1 sp-fold --form | grep -qx -- --format || fail "no --format"
	comp 1 sp-dump --fol | grep -qx -- --follow || fail "no --follow"
	comp 2 sp-fold --format sv | grep -qx svg || fail "no svg format"
	comp 2 sp-fold --view off | grep -qx off-cpu || fail "no --view values"
	comp 2 sp-record -e page- | grep -qx page-faults ||
		fail "no event names for -e"
	comp 2 sp-record -p "$$" | grep -qx "$$" || fail "no pid completion"
	comp 1 sp-archive --max-t | grep -qx -- --max-total ||
		fail "no sp-archive --max-total"
	comp 2 sp-record -p "$(cat /proc/$$/comm)" | grep -qx "$$" ||
		fail "no pid completion by name"
else
	echo "note: no bash, completion not tried"
fi

# shellcheck disable=SC2086
make -s -C "$TOP" $san B="$B" DESTDIR="$TMP/d" PREFIX=/opt/sp uninstall \
	>"$TMP/log" 2>&1 || fail "make uninstall: $(cat "$TMP/log")"
left=$(cd "$TMP/d" && find . -mindepth 1 ! -path ./opt)
[ -z "$left" ] || fail "uninstall left: $left"
# A folder that holds someone else's file stays, with that file.
mkdir -p "$TMP/d/opt/sp/bin" && : >"$TMP/d/opt/sp/bin/theirs"
# shellcheck disable=SC2086
make -s -C "$TOP" $san B="$B" DESTDIR="$TMP/d" PREFIX=/opt/sp install \
	uninstall >"$TMP/log" 2>&1 || fail "make install uninstall: $(cat "$TMP/log")"
[ -f "$TMP/d/opt/sp/bin/theirs" ] || fail "uninstall removed a file not its own"
exit 0
