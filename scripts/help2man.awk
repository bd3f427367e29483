# SPDX-License-Identifier: MIT
# mmtorture(1) from the program's own --help text (the option table the
# binary prints), so the manual cannot drift from the options.  Sections:
# the usage line, the paragraphs before the options, one .TP per option
# (continuation lines joined), the paragraphs after them, one .TP per exit
# code.
#   mmtorture --help | awk -v version=X -f help2man.awk > mmtorture.1
function esc(s) { gsub(/\\/, "\\e", s); gsub(/^[.']/, "\\\\\\&&", s); gsub(/-/, "\\-", s); return s }
BEGIN {
	print ".TH MMTORTURE 1 \"\" \"mmtorture " version "\" \"User Commands\""
	print ".SH NAME"
	print "mmtorture \\- stress the Linux memory model and memory management"
	state = "head"
}
NR == 1 && /^usage: / {
	sub(/^usage: [^ ]+ */, "")
	print ".SH SYNOPSIS"
	print ".B mmtorture"
	print esc($0)
	print ".br"
	print ".B run\\-scenario"
	print esc($0)
	print ".SH DESCRIPTION"
	next
}
# an option, or an exit code under "Exit:", and its text
/^  -/ || (state == "exit" && /^  [0-9]/) {
	if (state != "options" && state != "exit") { print ".SH OPTIONS"; state = "options" }
	line = substr($0, 3)
	# option and its text are separated by a run of two or more spaces
	if (match(line, /  +/)) {
		opt = substr(line, 1, RSTART - 1); text = substr(line, RSTART + RLENGTH)
	} else { opt = line; text = "" }
	print ".TP"
	print ".B " esc(opt)
	if (text != "") print esc(text)
	next
}
/^                          / && (state == "options" || state == "exit") { t = $0; sub(/^ +/, "", t); print esc(t); next }
/^$/ { if (state == "options") state = "tail"; print ".PP"; next }
state == "tail" && /^Exit:/ { print ".SH EXIT STATUS"; state = "exit"; next }
{ print esc($0) }
END {
	print ".SH SEE ALSO"
	print "The scenarios and their variants: \\fBmmtorture \\-\\-list\\fR."
	print "The results format: results/README.md and results/schema.json (installed under share/mmtorture)."
	print "Analysis: \\fBmmtorture\\-compare\\fR, \\fBmmtorture\\-report\\fR, \\fBmmtorture\\-nightly\\fR (each has \\-\\-help)."
}
